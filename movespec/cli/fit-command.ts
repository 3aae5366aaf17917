/**
 * `movespec fit`: chooses the numbers a MoveSpec's `fit:` block frees from labelled recordings,
 * writes the fitted MoveSpec and prints what was chosen and how well it will count recordings it
 * was not chosen on (cross-validated). See docs/tuning-movespecs.md.
 */
import { writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { LabelledRecording } from "../fit/evaluate.js";
import { FitError, type FitResult, fitMoveSpec } from "../fit/fit.js";
import { fitReport } from "./fit-report.js";
import { type Recording, readFrames, recordingsAt } from "./labelled-recordings.js";
import { readSpecFile } from "./load-spec.js";
import { type Io, stepBar } from "./output.js";
import { referencePath } from "./references.js";

export interface FitCommandOptions {
  negative?: string[];
  folds?: number;
  seed?: number;
  output?: string;
  inPlace?: boolean;
  json?: boolean;
  progress?: boolean;
}

/** `squat.yaml` -> `squat.fitted.yaml`, beside it. */
export function fittedPath(specFile: string): string {
  return join(dirname(specFile), `${basename(specFile).replace(/\.ya?ml$/i, "")}.fitted.yaml`);
}

/** Reads each recording's frames; the id is made unique when two files share one. */
function labelled(found: Recording[], negative: boolean, seen: Set<string>): LabelledRecording[] {
  return found.map((rec) => {
    const { frames } = readFrames(rec.path);
    let id = rec.id;
    for (let n = 2; seen.has(id); n++) id = `${rec.id}#${n}`;
    seen.add(id);
    return {
      id,
      frames,
      expected: negative ? 0 : rec.expected,
      segments: negative ? undefined : rec.segments,
      topology: rec.topology,
      aspectRatio: rec.aspectRatio,
      group: negative ? "negative" : (rec.exercise ?? "positive"),
    };
  });
}

export async function fitCommand(
  specFile: string,
  paths: string[],
  opts: FitCommandOptions,
  io: Io,
): Promise<number> {
  const read = readSpecFile(specFile, io);
  if (!read) return 1;
  const { source, result } = read;
  if (!result.spec) return 1;
  if (result.spec.fit.length === 0)
    io.stderr.write(
      `${specFile}: no fit: block, so nothing is free: the figures below are the MoveSpec's as given (docs/tuning-movespecs.md says how to free numbers)\n`,
    );
  let recordings: LabelledRecording[];
  try {
    const seen = new Set<string>();
    const positives =
      paths.length > 0
        ? paths.flatMap(recordingsAt)
        : result.spec.references.map((ref) => {
            const [rec] = recordingsAt(referencePath(specFile, ref));
            return ref.expectedCount === undefined ? rec : { ...rec, expected: ref.expectedCount };
          });
    recordings = [
      ...labelled(positives, false, seen),
      ...labelled((opts.negative ?? []).flatMap(recordingsAt), true, seen),
    ];
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  if (recordings.length === 0) {
    io.stderr.write(
      `${specFile}: no recordings to fit on: name them (files or directories with manifests), or list them under references:\n`,
    );
    return 1;
  }
  const bar = stepBar(io, "fit", opts.progress);
  let fitted: FitResult;
  try {
    fitted = fitMoveSpec(source, recordings, {
      folds: opts.folds,
      seed: opts.seed,
      onProgress: (p) => bar.update(p.done, p.total, p.stage),
    });
  } catch (err) {
    bar.stop();
    if (!(err instanceof FitError)) throw err;
    io.stderr.write(`${specFile}: ${err.message}\n`);
    return 1;
  }
  bar.stop();
  const output = opts.inPlace ? specFile : (opts.output ?? fittedPath(specFile));
  writeFileSync(output, fitted.source);
  if (opts.json)
    io.stdout.write(
      `${JSON.stringify({ file: specFile, written: output, ...fitted, source: undefined })}\n`,
    );
  else io.stdout.write(`${fitReport(fitted, specFile, output).join("\n")}\n`);
  return 0;
}
