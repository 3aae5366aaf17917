/**
 * A command's time limit: its `maxTimeMS`, and at most the server's own limit on how long one
 * command may compute. This server runs each command synchronously between awaits, in the one
 * thread that serves every client, so nothing can stop a command from outside: the loops that
 * can run long (scans, sorts, pipelines, regular expressions) call `tick()` as they go, and the
 * command ends with MaxTimeMSExpired (50), as mongod's do.
 */
import { badValue, MongoCommandError } from "./errors.js";

/** mongod's range for `maxTimeMS`: a 32-bit signed count of milliseconds; 0 is no limit. */
export const MAX_TIME_MS_LIMIT = 2_147_483_647;

/**
 * The clock is read on every `CLOCK_EVERY`th tick only (a read costs about 0.1 µs, as much as
 * matching a document by equality); `check()` reads it always, for steps that are slow anyway.
 */
const CLOCK_EVERY = 16;

export type Clock = () => number;

export class Deadline {
  private countdown = CLOCK_EVERY;
  private readonly clientExpiresAt: number;
  private workExpiresAt: number;

  /**
   * @param maxTimeMS the client's limit, from now (0: none)
   * @param workLimitMs the server's limit on the work itself (0: none), which `resume()` restarts
   */
  constructor(
    readonly maxTimeMS: number,
    private readonly workLimitMs: number,
    private readonly now: Clock = performance.now.bind(performance),
  ) {
    const started = maxTimeMS > 0 || workLimitMs > 0 ? now() : 0;
    this.clientExpiresAt = maxTimeMS > 0 ? started + maxTimeMS : Number.POSITIVE_INFINITY;
    this.workExpiresAt = workLimitMs > 0 ? started + workLimitMs : Number.POSITIVE_INFINITY;
  }

  static readonly none = new Deadline(0, 0, () => 0);

  /** Cheap enough for every document of a scan. */
  tick(): void {
    if (--this.countdown > 0) return;
    this.countdown = CLOCK_EVERY;
    this.check();
  }

  /** Throws MaxTimeMSExpired once the time is up. */
  check(): void {
    const expiresAt = Math.min(this.clientExpiresAt, this.workExpiresAt);
    if (expiresAt !== Number.POSITIVE_INFINITY && this.now() >= expiresAt) {
      throw new MongoCommandError("MaxTimeMSExpired", "operation exceeded time limit");
    }
  }

  /**
   * After waiting (for a transaction's lock): the server's limit is on work, which waiting is
   * not, and blocks no other client. The client's `maxTimeMS` still counts from the start.
   */
  resume(): void {
    if (this.workLimitMs > 0) this.workExpiresAt = this.now() + this.workLimitMs;
  }

  /**
   * Runs synchronous `work` with this deadline as the current one, for the code that cannot be
   * handed it (mingo's operators, the regular expressions they run).
   */
  run<T>(work: () => T): T {
    const previous = current;
    current = this;
    try {
      return work();
    } finally {
      current = previous;
    }
  }
}

let current: Deadline = Deadline.none;

/** The deadline of the synchronous work in progress (`Deadline.none` outside any). */
export function currentDeadline(): Deadline {
  return current;
}

/**
 * A command's `maxTimeMS` as mongod reads it: absent or 0 is no limit (0 returned); anything but
 * an integral number from 0 to 2^31 - 1 is BadValue.
 */
export function parseMaxTimeMS(value: unknown): number {
  if (value === undefined || value === null) return 0;
  // Values arrive promoted to numbers, except a Long beyond 2^53 (out of range anyway).
  const n = isLong(value) ? value.toNumber() : value;
  if (typeof n !== "number") throw badValue("maxTimeMS must be a number");
  if (!Number.isInteger(n)) throw badValue("maxTimeMS has non-integral value");
  if (n < 0 || n > MAX_TIME_MS_LIMIT) throw badValue("maxTimeMS is out of range");
  return n;
}

function isLong(value: unknown): value is { toNumber(): number } {
  return (value as { _bsontype?: string } | null)?._bsontype === "Long";
}
