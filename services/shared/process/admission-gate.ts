/**
 * At most `inFlight` operations at once, the others waiting their turn, first come first served.
 *
 * Why: on a machine that streams live frames, a burst of control-plane work (a round of 30
 * session creations, or 30 ends) run all at once saturates the cores for about a second, and
 * every session's frames are late together. The same work one or two at a time costs the same
 * CPU but leaves the cores to the frames in between (bench/detection/README.md, "Admission
 * paced"). The gate paces by concurrency, not by rate: an idle machine runs a queue as fast as
 * its work completes, a busy one more slowly.
 */
export interface AdmissionGate {
  /**
   * A place, now or when one frees up; `undefined` when `queueLimit` operations are waiting
   * already (the caller refuses the work). The returned `leave` frees the place; calling it
   * again does nothing.
   */
  enter(): Promise<Leave> | undefined;
  /** Operations holding a place. */
  readonly running: number;
  /** Operations waiting for one. */
  readonly waiting: number;
}

export type Leave = () => void;

export interface AdmissionGateOptions {
  /** Operations at once (at least 1). */
  readonly inFlight: number;
  /** Operations that may wait (0: none; `Infinity`: any number). */
  readonly queueLimit: number;
}

export function createAdmissionGate(options: AdmissionGateOptions): AdmissionGate {
  const { inFlight, queueLimit } = options;
  if (!Number.isInteger(inFlight) || inFlight < 1) {
    throw new RangeError(`inFlight must be an integer of at least 1, not ${inFlight}`);
  }
  if (
    !(queueLimit === Number.POSITIVE_INFINITY || (Number.isInteger(queueLimit) && queueLimit >= 0))
  ) {
    throw new RangeError(
      `queueLimit must be a non-negative integer or Infinity, not ${queueLimit}`,
    );
  }
  const queue: ((leave: Leave) => void)[] = [];
  let running = 0;

  const place = (): Leave => {
    running += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      running -= 1;
      const next = queue.shift();
      if (next) next(place());
    };
  };

  return {
    enter() {
      if (running < inFlight) return Promise.resolve(place());
      if (queue.length >= queueLimit) return undefined;
      return new Promise<Leave>((resolve) => queue.push(resolve));
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
