/**
 * Where each stateful part of a program keeps its state in the one shared state array (so the
 * engine's state snapshots as one array). The order of allocation is the snapshot's layout.
 */
export class StateLayout {
  /** Index 0..1: the body scale follower (value, last t). */
  size = 2;
  /** Puts each stateful function's slice in its initial state. */
  readonly initializers: ((state: Float64Array) => void)[] = [];

  /** Reserves `n` numbers; returns where they start. */
  alloc(n: number, init?: (state: Float64Array, at: number) => void): number {
    const at = this.size;
    this.size += n;
    if (init) this.initializers.push((state) => init(state, at));
    return at;
  }
}
