/**
 * `movespec test`: runs a MoveSpec over the recordings its `references:` list and compares the
 * counts, so that a MoveSpec carries its own regression test. Recording paths are relative to
 * the MoveSpec file; the expected count is the reference's `expected_count`, or else the
 * `expected_repetitions` of the manifest beside the recording (`x.jsonl.gz` -> `x.manifest.json`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { CompiledSpec, ReferenceRecording } from "../compiled-spec.js";
import type { TopologyName } from "../topology.js";
import { manifestPath } from "./labelled-recordings.js";
import { replay } from "./replay.js";

export interface ReferenceResult {
  recording: string;
  /** The recording's path as resolved from the MoveSpec's folder. */
  path: string;
  expected?: number;
  count?: number;
  partials?: number;
  ok: boolean;
  /** Why it failed, when it did not merely count wrong. */
  problem?: string;
}

export function referencePath(specFile: string, ref: ReferenceRecording): string {
  return resolve(dirname(specFile), ref.recording);
}

function expectedCount(ref: ReferenceRecording, path: string): number | string {
  if (ref.expectedCount !== undefined) return ref.expectedCount;
  const manifest = manifestPath(path);
  if (!existsSync(manifest))
    return `no expected_count, and no manifest beside the recording (${manifest})`;
  try {
    const n = JSON.parse(readFileSync(manifest, "utf8")).expected_repetitions;
    if (Number.isInteger(n) && n >= 0) return n;
    return `${manifest} has no expected_repetitions`;
  } catch (err) {
    return `cannot read ${manifest}: ${(err as Error).message}`;
  }
}

export async function testReferences(
  specFile: string,
  spec: CompiledSpec,
  options: { topology?: TopologyName; aspectRatio?: number },
): Promise<ReferenceResult[]> {
  const out: ReferenceResult[] = [];
  for (const ref of spec.references) {
    const path = referencePath(specFile, ref);
    const base = { recording: ref.recording, path };
    if (!existsSync(path)) {
      out.push({
        ...base,
        ok: false,
        problem: `recording not found: ${path} (reference paths are relative to the MoveSpec file)`,
      });
      continue;
    }
    const expected = expectedCount(ref, path);
    if (typeof expected === "string") {
      out.push({ ...base, ok: false, problem: expected });
      continue;
    }
    try {
      const { summary, rejected } = await replay(spec, path, {
        ...options,
        topology: ref.topology ?? options.topology,
      });
      out.push({
        ...base,
        expected,
        count: summary.count,
        partials: summary.partials,
        ok: summary.count === expected,
        ...(rejected > 0 ? { problem: `${rejected} line(s) rejected` } : {}),
      });
    } catch (err) {
      out.push({ ...base, expected, ok: false, problem: (err as Error).message });
    }
  }
  return out;
}
