/**
 * At most `inFlight` operations at once, the others waiting their turn, first come first served.
 *
 * Why: on a machine that streams live frames, a burst of control-plane work (a round of 30
 * session creations, or 30 ends) run all at once saturates the cores for about a second, and
 * every session's frames are late together. The same work one at a time costs more CPU on an
 * idle machine (about a quarter more per session creation: each process on its path wakes up for
 * each operation instead of serving several per wake-up), but on a busy one the frames get the
 * cores in between (bench/detection/README.md, "Admission paced"). The gate paces by concurrency,
 * not by rate: an idle machine runs a queue as fast as its work completes, a busy one more slowly.
 */
export interface AdmissionGate {
  /**
   * A place, now or when one frees up; `undefined` when `queueLimit` operations are waiting
   * already (the caller refuses the work). The returned `leave` frees the place; calling it
   * again does nothing. An aborted `signal` takes a waiter out of the queue and rejects its
   * promise with the signal's reason (a wait limit, a client gone), so that one stuck operation
   * cannot hold everyone queued behind it for ever.
   */
  enter(signal?: AbortSignal): Promise<Leave> | undefined;
  /**
   * Lets every waiting operation in at once, and every later one: for a process that stops,
   * finishing soon matters more than pacing. Cannot be undone.
   */
  open(): void;
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
  /**
   * A place held this long is given to the next waiter, the operation going on without it: one
   * that slow waits on something (a service that does not answer) rather than using the CPU the
   * gate paces, and must not hold the queue behind it. Unset: a place is held until left.
   */
  readonly holdLimitMs?: number;
}

export function createAdmissionGate(options: AdmissionGateOptions): AdmissionGate {
  const { inFlight, queueLimit, holdLimitMs } = options;
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
  if (holdLimitMs !== undefined && !(Number.isFinite(holdLimitMs) && holdLimitMs > 0)) {
    throw new RangeError(`holdLimitMs must be a positive number, not ${holdLimitMs}`);
  }
  const queue: ((leave: Leave) => void)[] = [];
  let running = 0;
  let opened = false;

  const place = (): Leave => {
    running += 1;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      clearTimeout(held);
      running -= 1;
      const next = queue.shift();
      if (next) next(place());
    };
    const held = holdLimitMs === undefined ? undefined : setTimeout(leave, holdLimitMs).unref();
    return leave;
  };

  const wait = (signal: AbortSignal | undefined) =>
    new Promise<Leave>((resolve, reject) => {
      if (!signal) {
        queue.push(resolve);
        return;
      }
      const onAbort = () => {
        queue.splice(queue.indexOf(granted), 1);
        reject(signal.reason);
      };
      const granted = (leave: Leave) => {
        signal.removeEventListener("abort", onAbort);
        resolve(leave);
      };
      queue.push(granted);
      signal.addEventListener("abort", onAbort, { once: true });
    });

  return {
    enter(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (opened || running < inFlight) return Promise.resolve(place());
      if (queue.length >= queueLimit) return undefined;
      return wait(signal);
    },
    open() {
      opened = true;
      for (const next of queue.splice(0)) next(place());
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
