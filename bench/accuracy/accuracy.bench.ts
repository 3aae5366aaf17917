/**
 * Counting accuracy of the reference MoveSpecs on real recordings (run on demand, never in
 * `npm test`):
 *
 *   npm run bench:accuracy -- [--specs DIR] [--exercise NAME,...] [--split] [--json] [-v] [DIR ...]
 *
 * Every recording of every directory of manifests runs through the public engine API, as the
 * detection service runs a session (load, createEngine, pushMany, finish; replay and live give the
 * same events byte for byte), with the reference MoveSpec of its exercise (exercises.ts). Per
 * exercise it prints clips, exact counts, counts within one, the mean absolute error and, where
 * the manifests have the true repetitions, how many counted repetitions fall inside one
 * (scoring.ts). See bench/accuracy/README.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type CompiledSpec,
  createEngine,
  type DetectionEvent,
  load,
} from "../../movespec/index.js";
import { isDirectory, listRecordings, type Recording, readFrames } from "./datasets.js";
import { REFERENCE_SPECS } from "./exercises.js";
import { type Half, matchRepetitions, splitHalves, type Tally, tally } from "./scoring.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");

const USAGE = `usage: npm run bench:accuracy -- [options] [DIR ...]

  DIR               directories of manifests (<id>.manifest.json beside <id>.jsonl[.gz], or in clips/);
                    default: the bundled UI-PRMD fixtures, then ../shared/posedata/repcount and
                    ../shared/posedata/uiprmd when present
  --specs DIR       reference MoveSpecs to use (default examples/movespecs)
  --exercise NAMES  only these exercises (comma-separated, or the option repeated)
  --split           report the "tune" and "held-out" halves of the clips apart
  --json            print one JSON document instead of tables
  -v, --verbose     a line per recording
  -h, --help        this text`;

/** In-the-wild goal of issue 12, checked on RepCount-A. */
const WILD_GOAL = { exact: 0.6, withinOne: 0.85 };

interface Dataset {
  label: string;
  path: string;
  /** Defaults that may be absent (../shared): absent is reported, not an error. */
  optional: boolean;
  /** The in-the-wild set, checked against WILD_GOAL. */
  wild: boolean;
}

const DEFAULT_DATASETS: Dataset[] = [
  {
    label: "UI-PRMD (bundled fixtures)",
    path: join(root, "test", "fixtures", "posedata", "uiprmd"),
    optional: false,
    wild: false,
  },
  {
    label: "RepCount-A (../shared/posedata/repcount)",
    path: join(root, "..", "shared", "posedata", "repcount"),
    optional: true,
    wild: true,
  },
  {
    label: "UI-PRMD (../shared/posedata/uiprmd)",
    path: join(root, "..", "shared", "posedata", "uiprmd"),
    optional: true,
    wild: false,
  },
];

interface ClipResult {
  id: string;
  exercise: string;
  spec?: string;
  half: Half;
  expected: number;
  /** Undefined when no reference MoveSpec could count it (a miss). */
  counted?: number;
  partials?: number;
  /** Times (s) of the rep.completed events. */
  repTimes?: number[];
  segments?: number;
  inside?: number;
  frames: number;
  /** Frames the engine refused, by reason (keypoints: null is FRAME_MALFORMED today). */
  rejected: Record<string, number>;
  unreadable: number;
  /** Why it is a miss. */
  note?: string;
}

interface SpecEntry {
  name: string;
  spec?: CompiledSpec;
  problem?: string;
}

/** Loads each reference MoveSpec once; a missing file or a MoveSpec with errors is a miss. */
function specLoader(dir: string, warn: (line: string) => void) {
  const cache = new Map<string, SpecEntry>();
  return (exercise: string): SpecEntry | undefined => {
    const name = REFERENCE_SPECS[exercise];
    if (name === undefined) return undefined;
    let entry = cache.get(name);
    if (!entry) {
      const file = join(dir, `${name}.yaml`);
      if (!existsSync(file)) entry = { name, problem: `no ${name}.yaml in the spec directory` };
      else {
        const r = load(readFileSync(file, "utf8"));
        for (const w of r.warnings) warn(`${name}.yaml: warning ${w.code}: ${w.message}`);
        entry = r.spec
          ? { name, spec: r.spec }
          : { name, problem: `${name}.yaml has errors: ${r.errors.map((e) => e.code).join(", ")}` };
        if (entry.problem) warn(entry.problem);
      }
      cache.set(name, entry);
    }
    return entry;
  };
}

function runRecording(rec: Recording, entry: SpecEntry | undefined, half: Half): ClipResult {
  const { frames, unreadable } = readFrames(rec.path);
  const base: ClipResult = {
    id: rec.id,
    exercise: rec.exercise,
    spec: entry?.name,
    half,
    expected: rec.expected,
    segments: rec.segments?.length,
    frames: frames.length,
    rejected: {},
    unreadable,
  };
  if (!entry?.spec)
    return { ...base, note: entry?.problem ?? `no reference MoveSpec for '${rec.exercise}'` };
  let engine: ReturnType<typeof createEngine>;
  try {
    engine = createEngine(entry.spec, { topology: rec.topology });
  } catch (e) {
    return { ...base, note: (e as Error).message };
  }
  const { events, rejected } = engine.pushMany(frames);
  const all: DetectionEvent[] = [...events, ...engine.finish().events];
  for (const r of rejected) base.rejected[r.reason] = (base.rejected[r.reason] ?? 0) + 1;
  const repTimes = all.filter((e) => e.type === "rep.completed").map((e) => e.t);
  const summary = all.find((e) => e.type === "session.summary");
  return {
    ...base,
    counted: repTimes.length,
    partials: summary?.type === "session.summary" ? summary.partials : undefined,
    repTimes,
    inside: rec.segments ? matchRepetitions(repTimes, rec.segments).inside : undefined,
  };
}

interface Row extends Tally {
  exercise: string;
  spec: string;
}

function rowsOf(clips: ClipResult[]): Row[] {
  const exercises = [...new Set(clips.map((c) => c.exercise))].sort();
  return exercises.map((exercise) => {
    const mine = clips.filter((c) => c.exercise === exercise);
    return {
      exercise,
      spec: mine.find((c) => c.spec)?.spec ?? "",
      ...tally(mine),
    };
  });
}

const pct = (n: number, of: number) => (of === 0 ? "-" : `${Math.round((100 * n) / of)}%`);

function table(rows: Row[], overall: Tally): string {
  const header = [
    "exercise",
    "MoveSpec",
    "clips",
    "exact",
    "within 1",
    "MAE",
    "rel. MAE",
    "inside",
  ];
  const line = (r: Tally, exercise: string, spec: string) => [
    exercise,
    spec,
    String(r.clips),
    `${r.exact} (${pct(r.exact, r.clips)})`,
    `${r.withinOne} (${pct(r.withinOne, r.clips)})`,
    r.mae.toFixed(2),
    r.relativeMae.toFixed(2),
    r.withSegments === 0 ? "-" : `${r.inside}/${r.counted}`,
  ];
  const body = rows.map((r) =>
    line(r, r.exercise, r.missing === r.clips ? `none (${r.spec || "no mapping"})` : r.spec),
  );
  body.push(line(overall, "all", ""));
  const cells = [header, ...body];
  const widths = header.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const fmt = (c: string[]) =>
    c.map((s, i) => (i < 2 ? s.padEnd(widths[i]) : s.padStart(widths[i]))).join("  ");
  return [fmt(header), ...body.map(fmt)].join("\n");
}

function clipLine(c: ClipResult): string {
  const diff = c.counted === undefined ? "miss" : c.counted - c.expected;
  const rejected = Object.entries(c.rejected)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return [
    `  ${c.id.padEnd(10)} ${c.exercise.padEnd(28)} ${c.half.padEnd(8)}`,
    `expected ${String(c.expected).padStart(3)}  counted ${String(c.counted ?? "-").padStart(3)}`,
    `(${typeof diff === "number" && diff > 0 ? "+" : ""}${diff})`,
    c.inside !== undefined ? ` inside ${c.inside}/${c.counted}` : "",
    c.partials ? ` partials ${c.partials}` : "",
    rejected ? ` rejected frames: ${rejected}` : "",
    c.unreadable ? ` unreadable lines: ${c.unreadable}` : "",
    c.note ? ` - ${c.note}` : "",
  ]
    .filter((part) => part !== "")
    .join(" ");
}

function commitOf(specDir: string): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, stdio: "pipe" })
      .toString()
      .trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", specDir], {
      cwd: root,
      stdio: "pipe",
    })
      .toString()
      .trim();
    return dirty ? `${head} (MoveSpecs changed since)` : head;
  } catch {
    return "unknown";
  }
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      specs: { type: "string" },
      exercise: { type: "string", multiple: true },
      split: { type: "boolean" },
      json: { type: "boolean" },
      verbose: { type: "boolean", short: "v" },
      help: { type: "boolean", short: "h" },
    },
  });
}

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseOptions>;
  try {
    args = parseOptions(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const opts = args.values;
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const specDir = resolve(opts.specs ?? join(root, "examples", "movespecs"));
  if (!isDirectory(specDir)) {
    process.stderr.write(`--specs ${specDir}: not a directory\n`);
    return 2;
  }
  const filter = opts.exercise?.flatMap((e) => e.split(",")).filter((e) => e !== "");
  const datasets: Dataset[] =
    args.positionals.length > 0
      ? args.positionals.map((p) => ({ label: p, path: resolve(p), optional: false, wild: false }))
      : DEFAULT_DATASETS;

  const tty = process.stderr.isTTY === true;
  const warn = (line: string) => process.stderr.write(`${line}\n`);
  const specFor = specLoader(specDir, warn);
  const report: {
    date: string;
    commit: string;
    specs: string;
    datasets: {
      label: string;
      path: string;
      present: boolean;
      clips: ClipResult[];
      exercises: Row[];
      overall: Tally;
      halves?: Record<Half, { exercises: Row[]; overall: Tally }>;
    }[];
  } = {
    date: new Date().toISOString().slice(0, 10),
    commit: commitOf(specDir),
    specs: relative(process.cwd(), specDir) || ".",
    datasets: [],
  };

  for (const ds of datasets) {
    if (!isDirectory(ds.path)) {
      if (!ds.optional) {
        warn(`${ds.label}: ${ds.path} is not a directory`);
        return 2;
      }
      warn(
        `${ds.label}: not present (${ds.path}); skipped. A clone has no ../shared: see bench/accuracy/README.md.`,
      );
      if (!opts.json) process.stdout.write(`\n${ds.label}: not present, skipped\n`);
      report.datasets.push({
        label: ds.label,
        path: ds.path,
        present: false,
        clips: [],
        exercises: [],
        overall: tally([]),
      });
      continue;
    }
    let recordings: Recording[];
    try {
      recordings = listRecordings(ds.path);
    } catch (e) {
      warn(`${ds.label}: ${(e as Error).message}`);
      return 2;
    }
    if (filter) recordings = recordings.filter((r) => filter.includes(r.exercise));
    const halves = splitHalves(recordings.map((r) => ({ id: r.id, group: r.exercise, r })));
    const halfOf = new Map([...halves].map(([k, h]) => [k.r, h]));
    const started = performance.now();
    const clips: ClipResult[] = [];
    let frames = 0;
    recordings.forEach((rec, i) => {
      if (tty) process.stderr.write(`\r\x1b[K${ds.label}: ${i + 1}/${recordings.length} ${rec.id}`);
      const result = runRecording(rec, specFor(rec.exercise), halfOf.get(rec)!);
      frames += result.frames;
      clips.push(result);
    });
    if (tty) process.stderr.write("\r\x1b[K");
    warn(
      `${ds.label}: ${clips.length} recordings, ${frames.toLocaleString("en")} frames in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const entry = {
      label: ds.label,
      path: ds.path,
      present: true,
      clips,
      exercises: rowsOf(clips),
      overall: tally(clips),
      halves: undefined as undefined | Record<Half, { exercises: Row[]; overall: Tally }>,
    };
    if (opts.split) {
      const of = (h: Half) => clips.filter((c) => c.half === h);
      entry.halves = {
        tune: { exercises: rowsOf(of("tune")), overall: tally(of("tune")) },
        "held-out": { exercises: rowsOf(of("held-out")), overall: tally(of("held-out")) },
      };
    }
    report.datasets.push(entry);

    if (opts.json) continue;
    const out: string[] = [`\n${ds.label}: ${clips.length} recordings`];
    if (entry.halves) {
      for (const h of ["tune", "held-out"] as const) {
        out.push(`\nhalf "${h}":`, table(entry.halves[h].exercises, entry.halves[h].overall));
      }
      out.push("\nboth halves:");
    }
    out.push(table(entry.exercises, entry.overall));
    if (ds.wild) {
      const o = entry.overall;
      const met =
        o.exact >= WILD_GOAL.exact * o.clips && o.withinOne >= WILD_GOAL.withinOne * o.clips;
      out.push(
        `goal (issue 12): >= ${WILD_GOAL.exact * 100}% exact and >= ${WILD_GOAL.withinOne * 100}% within one: ${met ? "met" : "not met"}`,
      );
    }
    if (opts.verbose) out.push("", ...clips.map(clipLine));
    process.stdout.write(`${out.join("\n")}\n`);
  }

  if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
  else
    process.stdout.write(
      `\n${report.date}, commit ${report.commit}, MoveSpecs from ${report.specs}; inside = counted repetitions whose rep.completed falls inside a true one (bench/accuracy/README.md)\n`,
    );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
