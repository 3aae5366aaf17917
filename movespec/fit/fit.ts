/**
 * `fitMoveSpec(source, recordings)`: chooses a MoveSpec's free numbers (its `fit:` block) from labelled
 * recordings, and says how well the choice will count people it was not chosen on.
 *
 * Two things are done with the same search (search.ts). On all the recordings, it picks the values
 * written into the fitted MoveSpec. And, for an honest figure, k-fold cross-validation: for each
 * fold the values are chosen on the other folds only and the fold's recordings are counted with
 * them. The cross-validated counts are what the choice predicts for recordings nobody tuned it on;
 * the counts with the values chosen on all recordings are in-sample, and flatter it.
 *
 * The search weighs the recordings of the movement (expected above 0) and those of other
 * movements (expected 0) as two halves, whatever their numbers: adding negatives tells the search
 * what not to count without outvoting the movement's own recordings.
 *
 * Every set of values is loaded as a MoveSpec and run on each recording at most once (cached), so
 * folds share the work of the values they try in common.
 */
import type { CompiledSpec, FitParameter } from "../compiled-spec.js";
import type { Issue } from "../issues.js";
import { load } from "../load/load.js";
import { withValues } from "./apply.js";
import { countRecording, type LabelledRecording, type Outcome } from "./evaluate.js";
import { assignFolds } from "./folds.js";
import { coordinateSearch, gridOf, type Margin, type Score, scoreOf } from "./search.js";

export interface FitOptions {
  /** Cross-validation folds (default 4; fewer recordings than folds: one recording a fold). */
  readonly folds?: number;
  /** Fixes the folds (default 1). */
  readonly seed?: number;
  /** Most rounds of the coordinate search (default 3). */
  readonly maxRounds?: number;
  /** Called as the work goes on: `done` of at most `total` units, and what is being done. */
  readonly onProgress?: (progress: FitProgress) => void;
}

export interface FitProgress {
  readonly done: number;
  readonly total: number;
  readonly stage: string;
}

export interface ParameterResult {
  readonly name: string;
  readonly range: readonly [number, number];
  readonly step: number;
  /** The value in the MoveSpec given. */
  readonly before: number;
  /** The value chosen on every recording. */
  readonly after: number;
  readonly margin: Margin;
}

export interface RecordingResult {
  readonly id: string;
  readonly group?: string;
  readonly expected: number;
  /** The cross-validation fold the recording is counted in. */
  readonly fold: number;
  /** Counted by the MoveSpec as given. */
  readonly before: Outcome;
  /** Counted with the values chosen on every recording (in-sample). */
  readonly after: Outcome;
  /** Counted with the values chosen without its fold (absent with a single recording). */
  readonly crossValidated?: Outcome;
}

export interface FoldResult {
  readonly fold: number;
  /** Ids of the recordings counted in this fold (never seen while its values were chosen). */
  readonly testIds: readonly string[];
  /** The values chosen on the other folds. */
  readonly values: readonly number[];
  readonly trainScore: Score;
  readonly testScore: Score;
}

export interface FitResult {
  /** The MoveSpec with the values chosen on every recording. */
  readonly source: string;
  readonly parameters: readonly ParameterResult[];
  readonly recordings: readonly RecordingResult[];
  readonly folds: readonly FoldResult[];
  readonly before: Score;
  readonly after: Score;
  readonly crossValidated?: Score;
  /** MoveSpecs loaded and run (distinct sets of values), and how many of them did not load. */
  readonly evaluations: number;
  readonly infeasible: number;
}

export class FitError extends Error {
  constructor(
    message: string,
    readonly issues: readonly Issue[] = [],
  ) {
    super(message);
  }
}

export function fitMoveSpec(
  source: string,
  recordings: readonly LabelledRecording[],
  options: FitOptions = {},
): FitResult {
  const loaded = load(source);
  if (!loaded.spec)
    throw new FitError("the MoveSpec does not load: fix its errors first", loaded.errors);
  const parameters = loaded.spec.fit;
  if (recordings.length === 0) throw new FitError("no recordings to fit on");
  const ids = new Set(recordings.map((r) => r.id));
  if (ids.size !== recordings.length) throw new FitError("two recordings have the same id");
  const maxRounds = options.maxRounds ?? 3;
  const k = Math.min(options.folds ?? 4, recordings.length);
  const foldOf = assignFolds(recordings, k, options.seed ?? 1);
  const runs = new Runs(source, parameters, recordings);

  // Progress: every search may scan each grid (maxRounds + 1) times; a search that settles
  // early hands back what it did not use.
  const perSearch = (maxRounds + 1) * parameters.reduce((n, p) => n + gridOf(p).length, 0) + 1;
  const searches = k > 1 ? k + 1 : 1;
  const total = perSearch * searches;
  let done = 0;
  const searchOn = (train: number[], stage: string) => {
    const weights = balanced(train.map((i) => recordings[i]));
    let used = 0;
    const result = coordinateSearch(
      parameters,
      parameters.map((p) => p.targets[0].value),
      (values) => {
        used++;
        done++;
        options.onProgress?.({ done, total, stage });
        return runs.score(values, train, weights);
      },
      { maxRounds },
    );
    done += Math.max(0, perSearch - used);
    options.onProgress?.({ done, total, stage });
    return result;
  };

  const all = recordings.map((_, i) => i);
  const start = parameters.map((p) => p.targets[0].value);
  const chosen = searchOn(all, "all recordings");
  const folds: FoldResult[] = [];
  const crossValidated: (Outcome | undefined)[] = recordings.map(() => undefined);
  if (k > 1) {
    for (let f = 0; f < k; f++) {
      const train = all.filter((i) => foldOf[i] !== f);
      const test = all.filter((i) => foldOf[i] === f);
      const found = searchOn(train, `fold ${f + 1} of ${k}`);
      const tested = runs.outcomes(found.values, test) ?? test.map((i) => missed(recordings[i]));
      test.forEach((i, n) => {
        crossValidated[i] = tested[n];
      });
      folds.push({
        fold: f,
        testIds: test.map((i) => recordings[i].id),
        values: found.values,
        trainScore: scoreOf(
          runs.outcomes(found.values, train) ?? train.map((i) => missed(recordings[i])),
        ),
        testScore: scoreOf(tested),
      });
    }
  }
  const before = runs.outcomes(start, all)!;
  const after = runs.outcomes(chosen.values, all) ?? before;
  return {
    source: withValues(source, parameters, chosen.values),
    parameters: parameters.map((p, i) => ({
      name: p.name,
      range: p.range,
      step: p.step,
      before: start[i],
      after: chosen.values[i],
      margin: chosen.margins[i],
    })),
    recordings: recordings.map((r, i) => ({
      id: r.id,
      group: r.group,
      expected: r.expected,
      fold: foldOf[i],
      before: before[i],
      after: after[i],
      crossValidated: crossValidated[i],
    })),
    folds,
    before: scoreOf(before),
    after: scoreOf(after),
    crossValidated: k > 1 ? scoreOf(crossValidated as Outcome[]) : undefined,
    evaluations: runs.loaded,
    infeasible: runs.infeasible,
  };
}

/**
 * Weights that make the recordings with repetitions and those without (negatives) weigh half
 * each, summing to the number of recordings; all 1 when there is only one kind.
 */
export function balanced(recordings: readonly LabelledRecording[]): number[] {
  const positives = recordings.filter((r) => r.expected > 0).length;
  const negatives = recordings.length - positives;
  if (positives === 0 || negatives === 0) return recordings.map(() => 1);
  const n = recordings.length;
  return recordings.map((r) => (r.expected > 0 ? n / (2 * positives) : n / (2 * negatives)));
}

/** What a recording scores when no MoveSpec could count it. */
function missed(rec: LabelledRecording): Outcome {
  return { expected: rec.expected, repTimes: [], rejected: 0, problem: "no MoveSpec loaded" };
}

/** Every MoveSpec a set of values makes, loaded once, and every recording counted once with it. */
class Runs {
  private readonly specs = new Map<string, CompiledSpec | null>();
  private readonly counted = new Map<string, Outcome[]>();
  loaded = 0;
  infeasible = 0;

  constructor(
    private readonly source: string,
    private readonly parameters: readonly FitParameter[],
    private readonly recordings: readonly LabelledRecording[],
  ) {}

  private spec(key: string, values: readonly number[]): CompiledSpec | null {
    let spec = this.specs.get(key);
    if (spec === undefined) {
      spec = load(withValues(this.source, this.parameters, values)).spec ?? null;
      this.specs.set(key, spec);
      this.loaded++;
      if (!spec) this.infeasible++;
    }
    return spec;
  }

  /** Outcomes of the recordings `which`, or undefined when the values make no MoveSpec. */
  outcomes(values: readonly number[], which: readonly number[]): Outcome[] | undefined {
    const key = values.join(",");
    const spec = this.spec(key, values);
    if (!spec) return undefined;
    let cache = this.counted.get(key);
    if (!cache) {
      cache = [];
      this.counted.set(key, cache);
    }
    return which.map((i) => {
      cache[i] ??= countRecording(spec, this.recordings[i]);
      return cache[i];
    });
  }

  score(
    values: readonly number[],
    which: readonly number[],
    weights: readonly number[],
  ): Score | undefined {
    const outcomes = this.outcomes(values, which);
    return outcomes ? scoreOf(outcomes, weights) : undefined;
  }
}
