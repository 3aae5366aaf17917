/**
 * Turns of the event loop handed out one at a time, for heavy synchronous steps (building and
 * writing the summary of a session that ends).
 *
 * `await new Promise((r) => setImmediate(r))` yields, but when many sessions end together (a
 * class finishing, a round of churn) their immediates all run in the same check phase, back to
 * back: 30 summaries of a few milliseconds each stalled every other session's frames for
 * hundreds of milliseconds. The queue resolves one waiter per loop iteration, so socket reads
 * (the poll phase) run between any two heavy steps, whoever they belong to.
 */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves on a turn of its own, after the waiters queued before it. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Waiters not yet given their turn. */
  get length(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(this.handOut);
  }

  private readonly handOut = (): void => {
    this.scheduled = false;
    const resume = this.waiting.shift();
    // An immediate queued while the check phase runs waits for the next iteration, so the next
    // waiter's turn comes after the poll phase: the step resumed here runs alone.
    this.schedule();
    resume?.();
  };
}
