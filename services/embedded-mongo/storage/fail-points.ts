/**
 * Test-only fail points in the compaction path (in the spirit of mongod's failpoints), set
 * with EMBEDDED_MONGO_TEST_FAILPOINTS: comma-separated `<point>[@<hit>]:<action>`, where the
 * action runs on the hit-th time (default the first) the point is reached:
 * - `crash`: the process kills itself with SIGKILL there (what `kill -9` at that instant does);
 * - `fail`: the step throws, as an I/O error would.
 * Points, in the order a compaction reaches them:
 * - `compaction.rotate`: before the new log is created;
 * - `compaction.rotated`: the new log is in place, the snapshot not yet started;
 * - `snapshot.record`: a snapshot record was written to the temporary file;
 * - `snapshot.synced`: the temporary file is complete and fsynced, not yet renamed;
 * - `snapshot.renamed`: the snapshot is in place, the files it replaces not yet deleted.
 */

export const FAIL_POINTS = [
  "compaction.rotate",
  "compaction.rotated",
  "snapshot.record",
  "snapshot.synced",
  "snapshot.renamed",
] as const;

export type FailPointName = (typeof FAIL_POINTS)[number];

type Action = "crash" | "fail";

interface FailPoint {
  name: FailPointName;
  hit: number;
  action: Action;
}

export class FailPointError extends Error {}

export type FailPoints = (name: FailPointName) => void;

/** Does nothing: the production setting. */
export const noFailPoints: FailPoints = () => {};

/** Parses the setting (throwing on anything malformed) into a function called at each point. */
export function parseFailPoints(spec: string): FailPoints {
  const points: FailPoint[] = [];
  for (const entry of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([a-z.]+)(?:@(\d+))?:(crash|fail)$/.exec(entry);
    const name = match?.[1] as FailPointName | undefined;
    if (!match || !name || !FAIL_POINTS.includes(name) || match[2] === "0") {
      throw new Error(
        `invalid fail point '${entry}': expected <point>[@<hit>]:crash|fail with point one of ${FAIL_POINTS.join(", ")}`,
      );
    }
    points.push({ name, hit: Number(match[2] ?? 1), action: match[3] as Action });
  }
  if (points.length === 0) return noFailPoints;
  const hits = new Map<FailPointName, number>();
  return (name) => {
    const count = (hits.get(name) ?? 0) + 1;
    hits.set(name, count);
    for (const point of points) {
      if (point.name !== name || point.hit !== count) continue;
      if (point.action === "crash") process.kill(process.pid, "SIGKILL");
      throw new FailPointError(`fail point ${name}@${count}`);
    }
  };
}
