/** Limits that keep the loader's time and memory bounded on hostile YAML. */
export const LOAD_LIMITS = {
  /** Largest source accepted (the API enforces the same limit on `yaml_source`). */
  maxSourceBytes: 256 * 1024,
  /** Deepest nesting of maps and sequences (a real MoveSpec needs about 5). */
  maxDepth: 24,
  /** Most YAML nodes in the document, counting every alias expansion. */
  maxNodes: 20_000,
  /** Most aliases (`*name`) in the document. */
  maxAliases: 64,
  /** Longest scalar (a description is at most 2,000 characters). */
  maxScalarLength: 8_192,
  /** Longest mapping key (names are short; a key is never text to read). */
  maxKeyLength: 200,
  /** Longest single line in the source. */
  maxLineLength: 16_384,
  /** Deepest `[` / `{` nesting seen by the pre-scan (before the YAML parser runs). */
  maxFlowDepth: 24,
  /** Most non-blank, non-comment lines (a real MoveSpec has a few hundred). */
  maxContentLines: 5_000,
  /** Most separators (`,` `:` `- `) the pre-scan accepts: a bound on the nodes to parse. */
  maxSeparators: 40_000,
  /** Largest number of entries of any one collection. */
  maxCollectionSize: 2_000,
  /**
   * Most phases, signals and adaptive signals (a real MoveSpec has 2 to 6 phases, under 20
   * signals, one or two adaptive). Phases are checked against each other pairwise, and each
   * adaptive signal keeps a window of samples per side in every session's engine: without these,
   * a 100 KB MoveSpec took seconds and gigabytes to load, or hundreds of MB per session to run.
   */
  maxPhases: 64,
  maxSignals: 128,
  maxAdaptiveSignals: 16,
  /**
   * `fit:` (movespec fit): most free numbers, most numbers one of them moves, most grid steps
   * across its range. The search evaluates every recording at each grid value of each number.
   */
  maxFitParameters: 16,
  maxFitTargets: 8,
  maxFitSteps: 200,
} as const;
