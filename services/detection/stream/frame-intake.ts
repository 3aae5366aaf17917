import type { Engine, PackedFrames } from "@movement-detection/movespec";
import type { SessionLimits } from "../config.js";
import type { SessionMode } from "../domain/session-document.js";
import { createFrameRateLimiter, type FrameRateLimiter } from "./frame-rate-limiter.js";
import type { Outbox } from "./outbox.js";
import type { StreamMetrics } from "./stream-metrics.js";

/** `take`'s answer when a live client's new frames pass its rate: none of them was looked at. */
export const RATE_EXCEEDED = -1;

/**
 * One way frames come in: a `frame` or `frames` message (parsed JSON), or a binary message's
 * frames read in place (./binary-frames.ts). The intake is the same for both.
 */
interface FrameFormat<T> {
  count(frames: T): number;
  /** Frame `i`'s seq; NaN when it has none that can be read. */
  seqAt(frames: T, i: number): number;
  /** Evaluates the first `n` frames and hands their events and rejections to the outbox. */
  push(engine: Engine, frames: T, n: number, outbox: Outbox, received: number): void;
}

const JSON_FRAMES: FrameFormat<unknown[]> = {
  count: (frames) => frames.length,
  seqAt: (frames, i) => seqOf(frames[i]) ?? Number.NaN,
  push(engine, frames, n, outbox, received) {
    if (n === 1) {
      // One frame (a `frame` message, mostly): the engine's single-frame path, and its warning
      // says nothing of an index.
      const result = engine.push(frames[0]);
      if (result.ok) outbox.events(result.events, received);
      else if (result.reason !== "SEQ_NOT_INCREASING") {
        outbox.rejectedFrame(result.reason, result.message, seqOf(frames[0]));
      }
    } else if (n > 1) {
      const result = engine.pushMany(frames.length > n ? frames.slice(0, n) : frames);
      outbox.events(result.events, received);
      outbox.rejections(result.rejected);
    }
  },
};

const PACKED_FRAMES: FrameFormat<PackedFrames> = {
  count: (frames) => frames.count,
  // The float64 that starts each frame.
  seqAt: (frames, i) => frames.view.getFloat64(frames.offset + i * frameBytes(frames), true),
  push(engine, frames, n, outbox, received) {
    const result = engine.pushPacked(frames.count > n ? { ...frames, count: n } : frames);
    outbox.events(result.events, received);
    outbox.rejections(result.rejected);
  },
};

/**
 * What an attached session takes of each frames message: within a live session's rate (new
 * frames only: resends after a reconnect are ignored, and the contract says resending is safe),
 * up to the session's frame limit, evaluated synchronously as the message arrives. Nothing
 * queues in memory: when the engine is slower than the client, the socket is read more slowly.
 */
export class FrameIntake {
  /** A message had a new frame past the frame limit: the session must end. */
  limitReached = false;
  private readonly limiter: FrameRateLimiter | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly outbox: Outbox,
    private readonly metrics: StreamMetrics,
    private readonly limits: Pick<SessionLimits, "maxFrames" | "liveMaxFps" | "liveBurstFrames">,
    mode: SessionMode,
  ) {
    // Only a live session's rate counts frames: a replay's are not looked at here.
    this.limiter =
      mode === "live"
        ? createFrameRateLimiter(limits.liveMaxFps, limits.liveBurstFrames)
        : undefined;
  }

  /**
   * A `frame` (one) or `frames` (a batch) message that reached the session at `at` (its clock)
   * and `received` (performance.now(), where the frame-to-event latency starts): the frames
   * accepted, or RATE_EXCEEDED.
   */
  takeJson(frames: unknown[], at: number, received: number): number {
    return this.take(JSON_FRAMES, frames, at, received);
  }

  /** A binary frames message, its header checked (./binary-frames.ts); as takeJson. */
  takePacked(frames: PackedFrames, at: number, received: number): number {
    return this.take(PACKED_FRAMES, frames, at, received);
  }

  private take<T>(format: FrameFormat<T>, frames: T, at: number, received: number): number {
    const count = format.count(frames);
    if (this.limiter) {
      const fresh = freshFrames(format, frames, count, this.engine.lastSeq);
      if (fresh > 0 && !this.limiter.take(fresh, at)) return RATE_EXCEEDED;
    }
    const room = Math.min(count, Math.max(this.limits.maxFrames - this.engine.acceptedFrames, 0));
    const before = this.engine.acceptedFrames;
    format.push(this.engine, frames, room, this.outbox, received);
    // Beyond the limit only new frames count: resends of accepted ones are still ignored. (Not
    // looked for when the whole message was taken: the per-message path stays as short.)
    if (room < count) this.limitReached = newFrameFrom(format, frames, room, this.engine.lastSeq);
    const accepted = this.engine.acceptedFrames - before;
    this.metrics.tally.framesAccepted += accepted;
    return accepted;
  }
}

/** How many frames have a seq above `lastSeq` (one without a readable seq counts: new). */
function freshFrames<T>(format: FrameFormat<T>, frames: T, count: number, lastSeq: number): number {
  let fresh = 0;
  for (let i = 0; i < count; i++) if (!(format.seqAt(frames, i) <= lastSeq)) fresh++;
  return fresh;
}

/** Whether a frame from `first` on has a seq above `lastSeq` (one without a readable seq: no). */
function newFrameFrom<T>(
  format: FrameFormat<T>,
  frames: T,
  first: number,
  lastSeq: number,
): boolean {
  const count = format.count(frames);
  for (let i = first; i < count; i++) if (format.seqAt(frames, i) > lastSeq) return true;
  return false;
}

function frameBytes(frames: PackedFrames): number {
  return (frames.view.byteLength - frames.offset) / frames.count;
}

function seqOf(frame: unknown): number | undefined {
  const seq = (frame as { seq?: unknown } | null)?.seq;
  return typeof seq === "number" && Number.isInteger(seq) ? seq : undefined;
}
