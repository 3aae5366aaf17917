/**
 * movespec command-line tool.
 *
 *   node --import tsx movespec/cli/main.ts validate <spec.yaml>
 *   node --import tsx movespec/cli/main.ts run <spec.yaml> <recording.jsonl>
 *        [--json] [--plot out.svg] [--topology blazepose-33|coco-17] [--aspect 16:9]
 *
 * Exit codes: 0 success, 1 the MoveSpec has errors or the run failed, 2 wrong usage.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseAspectRatio } from "../aspect-ratio.js";
import { createEngine, type DetectionEvent, load } from "../index.js";
import type { Issue } from "../issues.js";
import { isTopologyName, TOPOLOGY_NAMES } from "../topology.js";
import { type PlotSample, plotSvg } from "./plot-svg.js";
import { createProgressBar, NO_PROGRESS } from "./progress-bar.js";
import { readRecording, recordingSize } from "./recording.js";

const USAGE = `usage:
  movespec validate <spec.yaml>
  movespec run <spec.yaml> <recording.jsonl> [--json] [--plot out.svg] [--topology ${TOPOLOGY_NAMES.join("|")}] [--aspect 16:9]`;

/** Files this large get a progress bar (when stderr is a terminal). */
const PROGRESS_MIN_BYTES = 2 * 1024 * 1024;

function formatIssue(file: string, i: Issue): string {
  const where = i.line !== undefined ? `${file}:${i.line}:${i.column}` : file;
  return `${where}: ${i.severity} ${i.code}: ${i.message}${i.path ? ` (${i.path})` : ""}`;
}

function loadSpec(file: string, out: NodeJS.WriteStream) {
  const result = load(readFileSync(file, "utf8"));
  for (const i of [...result.errors, ...result.warnings]) out.write(`${formatIssue(file, i)}\n`);
  return result;
}

function parseAspect(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const ratio = parseAspectRatio(s);
  if (ratio === undefined) throw new Error(`--aspect must look like 16:9 or 1.78, not '${s}'`);
  return ratio;
}

function describe(e: DetectionEvent): string {
  const at = `t=${e.t.toFixed(2)}s seq=${e.seq}`;
  const side = e.side ? ` [${e.side}]` : "";
  switch (e.type) {
    case "rep.completed":
      return `${at} rep ${e.count}${side} (${e.metrics.duration}s, score ${e.score}${e.violations.length ? `, ${e.violations.join(", ")}` : ""})`;
    case "rep.partial":
      return `${at} partial rep${side}: ${e.reason}${e.progress !== undefined ? ` (progress ${e.progress})` : ""}`;
    case "phase.entered":
      return `${at} phase ${e.phase}${side} ${JSON.stringify(e.values)}`;
    case "form.violation":
      return `${at} ${e.severity} ${e.rule}${side}: ${e.message}`;
    case "tracking.lost":
      return `${at} tracking lost${side}: ${e.missing.join(", ")}`;
    case "tracking.regained":
      return `${at} tracking regained${side} after ${e.lost_for}s`;
    case "hold.started":
      return `${at} hold started${side} (target ${e.target}s)`;
    case "hold.progress":
      return `${at} hold ${e.elapsed}s${side} (${e.remaining}s to go)`;
    case "hold.completed":
      return `${at} hold completed${side} (${e.elapsed}s)`;
    case "hold.broken":
      return `${at} hold broken${side} after ${e.elapsed}s (${e.reason})`;
    case "session.summary":
      return `${at} summary: ${e.count} counted${e.counts ? ` (left ${e.counts.left}, right ${e.counts.right})` : ""}, ${e.partials} partial, score ${e.score}${e.longest_hold ? `, longest hold ${e.longest_hold}s` : ""}`;
  }
}

export async function main(
  argv: string[],
  io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        plot: { type: "string" },
        topology: { type: "string" },
        aspect: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command, specFile, recordingFile] = parsed.positionals;
  const opts = parsed.values as {
    json?: boolean;
    plot?: string;
    topology?: string;
    aspect?: string;
    help?: boolean;
  };
  if (opts.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === "validate" && specFile) {
    const result = loadSpec(specFile, io.stderr);
    if (opts.json)
      io.stdout.write(
        `${JSON.stringify({ ok: result.errors.length === 0, errors: result.errors, warnings: result.warnings })}\n`,
      );
    else
      io.stdout.write(
        result.spec
          ? `${specFile}: ok (${result.spec.name}; runs on ${result.spec.topologies.join(", ")})\n`
          : `${specFile}: ${result.errors.length} error(s)\n`,
      );
    return result.spec ? 0 : 1;
  }
  if (command !== "run" || !specFile || !recordingFile) {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const topology = opts.topology;
  if (topology !== undefined && !isTopologyName(topology)) {
    io.stderr.write(`--topology must be one of ${TOPOLOGY_NAMES.join(", ")}\n`);
    return 2;
  }
  let aspectRatio: number | undefined;
  try {
    aspectRatio = parseAspect(opts.aspect);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const result = loadSpec(specFile, io.stderr);
  if (!result.spec) return 1;
  const spec = result.spec;
  let engine: ReturnType<typeof createEngine>;
  try {
    engine = createEngine(spec, { topology, aspectRatio });
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  let size: number;
  try {
    size = recordingSize(recordingFile);
  } catch (err) {
    io.stderr.write(
      `cannot read ${recordingFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return 1;
  }
  const progress =
    io.stderr.isTTY && size >= PROGRESS_MIN_BYTES
      ? createProgressBar(io.stderr, size, recordingFile)
      : NO_PROGRESS;
  const events: DetectionEvent[] = [];
  const samples: PlotSample[] = [];
  let rejected = 0;
  const emit = (list: DetectionEvent[]) => {
    for (const e of list) {
      events.push(e);
      if (opts.json) io.stdout.write(`${JSON.stringify(e)}\n`);
      else if (e.type !== "phase.entered") io.stdout.write(`${describe(e)}\n`);
    }
  };
  for await (const line of readRecording(recordingFile)) {
    progress.update(line.bytesRead);
    if (line.error) {
      rejected++;
      io.stderr.write(`${recordingFile}:${line.line}: ${line.error}\n`);
      continue;
    }
    const r = engine.push(line.frame);
    if (!r.ok) {
      rejected++;
      io.stderr.write(`${recordingFile}:${line.line}: frame rejected: ${r.reason}: ${r.message}\n`);
      continue;
    }
    emit(r.events);
    if (opts.plot)
      samples.push({
        t: (line.frame as { t: number }).t,
        values: engine.signalValues(),
        phases: engine.currentPhases(),
        ranges: engine.adaptiveRanges(),
      });
  }
  progress.finish();
  const { events: last, summary } = engine.finish();
  emit(last);
  if (!opts.json) {
    io.stdout.write(
      `count: ${summary.count}${summary.counts ? ` (left ${summary.counts.left}, right ${summary.counts.right})` : ""}\n`,
    );
  }
  if (rejected > 0) io.stderr.write(`${rejected} frame(s) rejected\n`);
  if (opts.plot) {
    writeFileSync(opts.plot, plotSvg(spec, samples, events, `${spec.name}: ${recordingFile}`));
    io.stderr.write(`plot written to ${opts.plot}\n`);
  }
  return 0;
}

const invokedDirectly =
  process.argv[1] &&
  import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/").split("/").pop() ?? "");
if (invokedDirectly) {
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
