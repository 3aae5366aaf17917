/**
 * Where each stateful part of a program keeps its state in the one shared state array (so the
 * engine's state snapshots as one array). The order of allocation is the snapshot's layout.
 */
export class StateLayout {
  /** Index 0..1: the body scale follower (value, last t). */
  size = 2;
  /** Puts each stateful function's slice in its initial state. */
  readonly initializers: ((state: Float64Array) => void)[] = [];
  /** Zero the numbers of each slice that its function writes before it reads them again. */
  readonly unusedClearers: ((state: Float64Array) => void)[] = [];

  /**
   * Reserves `n` numbers; returns where they start. `clearUnused` zeroes the numbers of the slice
   * that hold nothing the function will read (free slots of a window): a snapshot then carries
   * zeros there instead of old values, and restores to the same behaviour.
   */
  alloc(
    n: number,
    init?: (state: Float64Array, at: number) => void,
    clearUnused?: (state: Float64Array, at: number) => void,
  ): number {
    const at = this.size;
    this.size += n;
    if (init) this.initializers.push((state) => init(state, at));
    if (clearUnused) this.unusedClearers.push((state) => clearUnused(state, at));
    return at;
  }
}
