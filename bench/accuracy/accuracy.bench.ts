/**
 * Counting accuracy of the reference MoveSpecs on real recordings (run on demand, never in
 * `npm test`):
 *
 *   npm run bench:accuracy -- [--specs DIR] [--exercise NAME,...] [--folds K] [--seed N]
 *                             [--no-cv] [--no-perturb] [--no-specificity] [--json] [-v] [DIR ...]
 *
 * Every recording runs through the public engine API as a detection session would (load,
 * createEngine, pushMany, finish). Per exercise it reports the counts of the MoveSpecs as shipped
 * (in-sample: their numbers were chosen on these recordings) and cross-validated (each fold
 * counted with the numbers `movespec fit` chooses on the other folds: what to expect on people
 * nobody tuned them on), class-balanced; then the counts that change when the recordings are
 * perturbed, and what each MoveSpec counts on the other movements' recordings. See
 * bench/accuracy/README.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type CompiledSpec, load } from "@movement-detection/movespec";
import {
  columns,
  isDirectory,
  listRecordings,
  type Recording,
  readFrames,
} from "@movement-detection/movespec/cli";
import {
  countRecording,
  fitMoveSpec,
  type LabelledRecording,
  type Outcome,
  type Tally,
  tally,
} from "@movement-detection/movespec/fit";
import { NEGATIVES, negativeTolerance, REFERENCE_SPECS } from "./exercises.js";
import { type Frame, hasDepth, PERTURBATIONS } from "./perturbations.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");

const USAGE = `usage: npm run bench:accuracy -- [options] [DIR ...]

  DIR               directories of manifests (<id>.manifest.json beside <id>.jsonl[.gz], or in clips/);
                    default: the bundled UI-PRMD fixtures, then ../shared/posedata/repcount when present
  --specs DIR       reference MoveSpecs to use (default examples/movespecs)
  --exercise NAMES  only these exercises (comma-separated, or the option repeated)
  --folds K         cross-validation folds (default: leave one out, a fold per recording)
  --seed N          fixes the folds (default 1)
  --no-cv           the MoveSpecs as shipped only (no cross-validation: seconds instead of minutes)
  --no-perturb      skip the perturbed recordings
  --no-specificity  skip the other movements' recordings
  --write-fitted DIR  write each MoveSpec with its fit: numbers chosen on all its recordings into DIR
  --json            print one JSON document instead of tables
  -v, --verbose     a line per recording
  -h, --help        this text`;

/**
 * Issue 37's goals, cross-validated and class-balanced on the in-the-wild set: exact, within
 * one, relative MAE, and no exercise below half exact.
 */
const WILD_GOAL = { exact: 0.7, withinOne: 0.9, relativeMae: 0.1, perExerciseExact: 0.5 };

/** As many folds as recordings: each counted with numbers chosen on all the others. */
const LEAVE_ONE_OUT = Number.MAX_SAFE_INTEGER;
const foldsText = (folds: number) => (folds === LEAVE_ONE_OUT ? "leave one out" : `${folds} folds`);

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
    label: "UI-PRMD",
    path: join(root, "test", "fixtures", "posedata", "uiprmd"),
    optional: false,
    wild: false,
  },
  {
    label: "RepCount-A",
    path: join(root, "..", "shared", "posedata", "repcount"),
    optional: true,
    wild: true,
  },
];

/** A recording read once, with where it came from. */
interface Loaded {
  rec: Recording & { exercise: string };
  dataset: Dataset;
  frames: Frame[];
  unreadable: number;
  depth: boolean;
}

interface SpecFile {
  name: string;
  source?: string;
  spec?: CompiledSpec;
  problem?: string;
}

/** What became of one recording: counted as shipped, and cross-validated. */
interface ClipResult {
  id: string;
  exercise: string;
  spec?: string;
  expected: number;
  /** Undefined when no reference MoveSpec could count it (a miss). */
  shipped?: Outcome;
  crossValidated?: Outcome;
  fold?: number;
  frames: number;
  unreadable: number;
  note?: string;
}

interface Row {
  exercise: string;
  spec: string;
  shipped: Tally;
  crossValidated?: Tally;
}

/** Mean rates over exercises: each exercise weighs the same however many clips it has. */
interface Balanced {
  exercises: number;
  exact: number;
  withinOne: number;
  mae: number;
  relativeMae: number;
}

function balanced(rows: readonly Tally[]): Balanced {
  const n = rows.length;
  const mean = (f: (t: Tally) => number) => (n === 0 ? 0 : rows.reduce((s, t) => s + f(t), 0) / n);
  return {
    exercises: n,
    exact: mean((t) => t.exact / t.clips),
    withinOne: mean((t) => t.withinOne / t.clips),
    mae: mean((t) => t.mae),
    relativeMae: mean((t) => t.relativeMae),
  };
}

function specFiles(dir: string, warn: (line: string) => void) {
  const cache = new Map<string, SpecFile>();
  return (name: string): SpecFile => {
    let entry = cache.get(name);
    if (!entry) {
      const file = join(dir, `${name}.yaml`);
      if (!existsSync(file)) entry = { name, problem: `no ${name}.yaml in the spec directory` };
      else {
        const source = readFileSync(file, "utf8");
        const r = load(source);
        for (const w of r.warnings) warn(`${name}.yaml: warning ${w.code}: ${w.message}`);
        entry = r.spec
          ? { name, source, spec: r.spec }
          : { name, problem: `${name}.yaml has errors: ${r.errors.map((e) => e.code).join(", ")}` };
        if (entry.problem) warn(entry.problem);
      }
      cache.set(name, entry);
    }
    return entry;
  };
}

const labelled = (l: Loaded, negative = false): LabelledRecording => ({
  id: `${l.dataset.label}/${l.rec.id}`,
  frames: l.frames,
  expected: negative ? 0 : l.rec.expected,
  segments: negative ? undefined : l.rec.segments,
  topology: l.rec.topology,
  group: `${negative ? "negative " : ""}${l.dataset.label}/${l.rec.exercise}`,
});

const pct = (x: number) => `${Math.round(100 * x)}%`;
const ofClips = (n: number, of: number) => `${n} (${of === 0 ? "-" : pct(n / of)})`;

function tallyOf(clips: readonly ClipResult[], which: "shipped" | "crossValidated"): Tally {
  return tally(clips.map((c) => c[which] ?? { expected: c.expected }));
}

function rowsOf(clips: readonly ClipResult[], cv: boolean): Row[] {
  const exercises = [...new Set(clips.map((c) => c.exercise))].sort();
  return exercises.map((exercise) => {
    const mine = clips.filter((c) => c.exercise === exercise);
    return {
      exercise,
      spec: mine.find((c) => c.spec)?.spec ?? "",
      shipped: tallyOf(mine, "shipped"),
      crossValidated: cv ? tallyOf(mine, "crossValidated") : undefined,
    };
  });
}

function countingTable(rows: Row[], clips: ClipResult[], cv: boolean): string[] {
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
  if (cv) header.push("|", "CV exact", "CV within 1", "CV rel. MAE");
  const line = (label: string, spec: string, s: Tally, c?: Tally) => {
    const cells = [
      label,
      spec,
      String(s.clips),
      ofClips(s.exact, s.clips),
      ofClips(s.withinOne, s.clips),
      s.mae.toFixed(2),
      s.relativeMae.toFixed(2),
      s.withSegments === 0 ? "-" : `${s.inside}/${s.counted}`,
    ];
    if (c)
      cells.push(
        `| ${ofClips(c.exact, c.clips)}`,
        ofClips(c.withinOne, c.clips),
        c.relativeMae.toFixed(2),
      );
    return cells;
  };
  const body = rows.map((r) =>
    line(
      r.exercise,
      r.shipped.missing === r.shipped.clips ? `none (${r.spec || "no mapping"})` : r.spec,
      r.shipped,
      r.crossValidated,
    ),
  );
  body.push(
    line(
      "all (pooled)",
      "",
      tallyOf(clips, "shipped"),
      cv ? tallyOf(clips, "crossValidated") : undefined,
    ),
  );
  const b = balanced(rows.map((r) => r.shipped));
  const bc = cv ? balanced(rows.map((r) => r.crossValidated!)) : undefined;
  const bal = [
    "class-balanced",
    "",
    String(b.exercises),
    pct(b.exact),
    pct(b.withinOne),
    b.mae.toFixed(2),
    b.relativeMae.toFixed(2),
    "",
  ];
  if (bc) bal.push("|", pct(bc.exact), pct(bc.withinOne), bc.relativeMae.toFixed(2));
  body.push(bal);
  return columns([header, ...body], 2);
}

function clipLine(c: ClipResult): string {
  const counted = c.shipped?.counted;
  const diff = counted === undefined ? "miss" : counted - c.expected;
  const cv = c.crossValidated?.counted;
  return [
    `  ${c.id.padEnd(10)} ${c.exercise.padEnd(28)}`,
    `expected ${String(c.expected).padStart(3)}  counted ${String(counted ?? "-").padStart(3)}`,
    `(${typeof diff === "number" && diff > 0 ? "+" : ""}${diff})`,
    cv !== undefined ? ` CV ${cv} (fold ${(c.fold ?? 0) + 1})` : "",
    c.shipped?.inside !== undefined ? ` inside ${c.shipped.inside}/${counted}` : "",
    c.unreadable ? ` unreadable lines: ${c.unreadable}` : "",
    c.shipped?.rejected ? ` rejected frames: ${c.shipped.rejected}` : "",
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
    allowNegative: true,
    options: {
      specs: { type: "string" },
      exercise: { type: "string", multiple: true },
      folds: { type: "string" },
      seed: { type: "string" },
      cv: { type: "boolean", default: true },
      perturb: { type: "boolean", default: true },
      specificity: { type: "boolean", default: true },
      "write-fitted": { type: "string" },
      json: { type: "boolean" },
      verbose: { type: "boolean", short: "v" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function wholeNumber(text: string | undefined, fallback: number, what: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new Error(`${what} must be a whole number, 1 or more`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseOptions>;
  let folds: number;
  let seed: number;
  try {
    args = parseOptions(argv);
    folds = wholeNumber(args.values.folds, LEAVE_ONE_OUT, "--folds");
    seed = wholeNumber(args.values.seed, 1, "--seed");
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
  const status = (line: string) => {
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
  };
  const specFor = specFiles(specDir, warn);
  const cv = opts.cv !== false;
  const out: string[] = [];
  const print = (...lines: string[]) => out.push(...lines);

  // Read every recording once.
  const loaded: Loaded[] = [];
  const present: Dataset[] = [];
  const absent: Dataset[] = [];
  for (const ds of datasets) {
    if (!isDirectory(ds.path)) {
      if (!ds.optional) {
        warn(`${ds.label}: ${ds.path} is not a directory`);
        return 2;
      }
      warn(
        `${ds.label}: not present (${ds.path}); skipped. A clone has no ../shared: see bench/accuracy/README.md.`,
      );
      absent.push(ds);
      continue;
    }
    let recordings: Recording[];
    try {
      recordings = listRecordings(ds.path);
    } catch (e) {
      warn(`${ds.label}: ${(e as Error).message}`);
      return 2;
    }
    const missing = recordings.find((r) => r.exercise === undefined);
    if (missing) {
      warn(`${ds.label}: the manifest of ${missing.id} names no "exercise"`);
      return 2;
    }
    present.push(ds);
    for (const rec of recordings as (Recording & { exercise: string })[]) {
      const { frames, unreadable } = readFrames(rec.path);
      loaded.push({
        rec,
        dataset: ds,
        frames: frames as Frame[],
        unreadable,
        depth: hasDepth(frames as Frame[]),
      });
    }
    status(`${ds.label}: ${recordings.length} recordings read`);
  }
  const counted = loaded.filter((l) => !filter || filter.includes(l.rec.exercise));

  // Counting, as shipped and cross-validated: one fit per MoveSpec over every recording it counts.
  const started = performance.now();
  const results = new Map<Loaded, ClipResult>();
  const specNames = [
    ...new Set(counted.map((l) => REFERENCE_SPECS[l.rec.exercise]).filter(Boolean)),
  ].sort();
  for (const l of counted) {
    const name = REFERENCE_SPECS[l.rec.exercise];
    const file = name ? specFor(name) : undefined;
    results.set(l, {
      id: l.rec.id,
      exercise: l.rec.exercise,
      spec: name,
      expected: l.rec.expected,
      frames: l.frames.length,
      unreadable: l.unreadable,
      note: file?.spec
        ? undefined
        : (file?.problem ?? `no reference MoveSpec for '${l.rec.exercise}'`),
    });
  }
  for (const name of specNames) {
    const file = specFor(name);
    if (!file.spec || !file.source) continue;
    const positives = counted.filter((l) => REFERENCE_SPECS[l.rec.exercise] === name);
    const negatives = loaded.filter((l) => (NEGATIVES[name] ?? []).includes(l.rec.exercise));
    const pool = [...positives.map((l) => labelled(l)), ...negatives.map((l) => labelled(l, true))];
    if (cv) {
      const fitted = fitMoveSpec(file.source, pool, {
        folds,
        seed,
        onProgress: (p) =>
          status(`cross-validating ${name}: ${p.stage} ${Math.round((100 * p.done) / p.total)}%`),
      });
      if (opts["write-fitted"]) {
        // A directory named for this run's output need not exist yet (it crashed with ENOENT).
        mkdirSync(resolve(opts["write-fitted"]), { recursive: true });
        const out = join(resolve(opts["write-fitted"]), `${name}.yaml`);
        writeFileSync(out, fitted.source);
        warn(`${name}: fitted on ${pool.length} recordings, written to ${out}`);
      }
      positives.forEach((l, i) => {
        const r = fitted.recordings[i];
        Object.assign(results.get(l)!, {
          shipped: r.before,
          crossValidated: r.crossValidated,
          fold: r.fold,
        });
      });
    } else {
      positives.forEach((l, i) => {
        results.get(l)!.shipped = countRecording(file.spec!, pool[i]);
      });
    }
  }
  status("");
  warn(
    `counted ${counted.length} recordings with ${specNames.length} MoveSpecs${cv ? `, cross-validated (${foldsText(folds)}, seed ${seed})` : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const report: Record<string, unknown> = {
    date: new Date().toISOString().slice(0, 10),
    commit: commitOf(specDir),
    specs: relative(process.cwd(), specDir) || ".",
    folds: cv ? (folds === LEAVE_ONE_OUT ? "leave one out" : folds) : undefined,
    seed: cv ? seed : undefined,
    datasets: [] as unknown[],
  };
  const goals: string[] = [];
  for (const ds of absent) {
    print(`\n${ds.label}: not present, skipped`);
    (report.datasets as unknown[]).push({ label: ds.label, path: ds.path, present: false });
  }
  for (const ds of present) {
    const clips = counted.filter((l) => l.dataset === ds).map((l) => results.get(l)!);
    if (clips.length === 0) continue;
    const rows = rowsOf(clips, cv);
    print(
      `\n${ds.label} (${clips.length} recordings): as shipped (in-sample) | cross-validated (${cv ? foldsText(folds) : "not run"})`,
      ...countingTable(rows, clips, cv),
    );
    const bc = cv ? balanced(rows.map((r) => r.crossValidated!)) : undefined;
    if (ds.wild && bc) {
      const worst = Math.min(...rows.map((r) => r.crossValidated!.exact / r.crossValidated!.clips));
      const met =
        bc.exact >= WILD_GOAL.exact &&
        bc.withinOne >= WILD_GOAL.withinOne &&
        bc.relativeMae <= WILD_GOAL.relativeMae &&
        worst >= WILD_GOAL.perExerciseExact;
      goals.push(
        `${ds.label}, cross-validated, class-balanced: ${pct(bc.exact)} exact (goal >= ${pct(WILD_GOAL.exact)}), ${pct(bc.withinOne)} within one (>= ${pct(WILD_GOAL.withinOne)}), rel. MAE ${bc.relativeMae.toFixed(2)} (<= ${WILD_GOAL.relativeMae}), worst exercise ${pct(worst)} exact (>= ${pct(WILD_GOAL.perExerciseExact)}): ${met ? "met" : "not met"}`,
      );
    }
    if (!ds.wild) {
      const exact = clips.filter((c) => c.shipped?.counted === c.expected).length;
      goals.push(
        `${ds.label}: ${exact} of ${clips.length} exact as shipped (goal: all): ${exact === clips.length ? "met" : "not met"}`,
      );
    }
    if (opts.verbose) print("", ...clips.map(clipLine));
    (report.datasets as unknown[]).push({
      label: ds.label,
      path: ds.path,
      present: true,
      clips,
      exercises: rows,
      balanced: { shipped: balanced(rows.map((r) => r.shipped)), crossValidated: bc },
    });
  }

  if (opts.perturb !== false) {
    const perturbed = perturbationTable(present, counted, results, specFor, seed, (line) =>
      status(line),
    );
    print(
      "",
      "Perturbed recordings (MoveSpecs as shipped): counts that change / recordings, and exact counts",
      ...perturbed.lines,
    );
    goals.push(...perturbed.goals);
    report.perturbations = perturbed.json;
  }
  if (opts.specificity !== false) {
    const spec = specificityTables(present, loaded, specFor, (line) => status(line));
    print("", ...spec.lines);
    goals.push(...spec.goals);
    report.specificity = spec.json;
  }
  status("");
  report.goals = goals;
  if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
  else {
    print("", "Goals (issue 37)", ...goals.map((g) => `  ${g}`));
    print(
      "",
      `${report.date}, commit ${report.commit}, MoveSpecs from ${report.specs}; CV = each fold counted with the numbers movespec fit chose on the other folds (bench/accuracy/README.md)`,
    );
    process.stdout.write(`${out.join("\n")}\n`);
  }
  return 0;
}

function perturbationTable(
  present: Dataset[],
  counted: Loaded[],
  results: Map<Loaded, ClipResult>,
  specFor: (name: string) => SpecFile,
  seed: number,
  status: (line: string) => void,
) {
  const header = ["perturbation", ...present.flatMap((ds) => [`${ds.label} changed`, "exact"])];
  const rows: string[][] = [];
  const json: Record<string, unknown>[] = [];
  const goals: string[] = [];
  const baseline = (l: Loaded) => results.get(l)?.shipped?.counted;
  for (const p of PERTURBATIONS) {
    const cells = [p.name];
    for (const ds of present) {
      const mine = counted.filter((l) => l.dataset === ds && (!p.needsDepth || l.depth));
      if (mine.length === 0) {
        cells.push("-", "-");
        continue;
      }
      let changed = 0;
      let exact = 0;
      const changes: { id: string; from?: number; to?: number }[] = [];
      for (const l of mine) {
        status(`perturbed: ${p.name}, ${ds.label} ${l.rec.id}`);
        const spec = specFor(REFERENCE_SPECS[l.rec.exercise] ?? "")?.spec;
        if (!spec) continue;
        const frames = p.apply(l.frames, seed + l.rec.id.length);
        const o = countRecording(spec, { ...labelled(l), frames });
        if (o.counted !== baseline(l)) {
          changed++;
          changes.push({ id: l.rec.id, from: baseline(l), to: o.counted });
        }
        if (o.counted === l.rec.expected) exact++;
      }
      cells.push(`${changed}/${mine.length}`, `${exact}/${mine.length}`);
      json.push({
        perturbation: p.name,
        dataset: ds.label,
        recordings: mine.length,
        changed,
        exact,
        changes,
      });
      if (!ds.wild)
        goals.push(
          `${ds.label} ${p.name}: ${changed} count(s) changed (goal: none): ${changed === 0 ? "met" : `not met (${changes.map((c) => `${c.id} ${c.from}->${c.to}`).join(", ")})`}`,
        );
    }
    rows.push(cells);
  }
  return { lines: columns([header, ...rows], 1, "  "), json, goals };
}

/** Each MoveSpec on each movement's recordings: what a MoveSpec counts when it should not. */
function specificityTables(
  present: Dataset[],
  loaded: Loaded[],
  specFor: (name: string) => SpecFile,
  status: (line: string) => void,
) {
  const lines: string[] = [];
  const goals: string[] = [];
  const json: Record<string, unknown>[] = [];
  for (const ds of present) {
    const mine = loaded.filter((l) => l.dataset === ds);
    const exercises = [...new Set(mine.map((l) => l.rec.exercise))].sort();
    const specs = [
      ...new Set([
        ...exercises.map((e) => REFERENCE_SPECS[e]).filter(Boolean),
        ...(ds.wild ? [] : Object.keys(NEGATIVES)),
      ]),
    ].sort();
    const rows: string[][] = [];
    for (const name of specs) {
      const spec = specFor(name).spec;
      if (!spec) continue;
      const cells = [name];
      const misses: string[] = [];
      let failed = false;
      for (const exercise of exercises) {
        const recs = mine.filter((l) => l.rec.exercise === exercise);
        const counts = recs.map((l) => {
          status(`specificity: ${name} on ${ds.label} ${l.rec.id}`);
          return countRecording(spec, labelled(l)).counted ?? 0;
        });
        const expected = recs.reduce((s, l) => s + l.rec.expected, 0);
        const total = counts.reduce((s, n) => s + n, 0);
        json.push({ dataset: ds.label, spec: name, exercise, counts, expected });
        if (ds.wild) cells.push(expected === 0 ? "-" : pct(total / expected));
        else cells.push(counts.join(" "));
        if (!ds.wild && (NEGATIVES[name] ?? []).includes(exercise)) {
          const tolerance = negativeTolerance(name, exercise);
          const over = counts.filter((n) => n > tolerance).length;
          misses.push(
            `${exercise} ${counts.join("/")}${tolerance ? ` (<= ${tolerance} each)` : ""}${over ? " NOT MET" : ""}`,
          );
          if (over) failed = true;
        }
      }
      if (misses.length > 0)
        goals.push(
          `${ds.label} specificity: ${name} on ${misses.join(", ")}: ${failed ? "not met" : "met"}`,
        );
      rows.push(cells);
    }
    lines.push(
      ds.wild
        ? `${ds.label}: each MoveSpec on each exercise's clips, counted / labelled repetitions (per-frame normalised coordinates: no goal)`
        : `${ds.label}: each MoveSpec on each movement's recordings, the count of each recording`,
      ...columns([["MoveSpec", ...exercises], ...rows], 1, "  "),
      "",
    );
  }
  return { lines, goals, json };
}

process.exitCode = await main(process.argv.slice(2));
