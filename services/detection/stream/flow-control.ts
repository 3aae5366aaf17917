import type { DurabilitySettings } from "../config.js";
import type { StreamSink } from "./stream-sink.js";

export type PauseCause = "unacked" | "outbound";

const DRAIN_POLL_MS = 5;

/**
 * When an attached session stops reading its client's socket, and when it reads again: too many
 * frames not yet durable (until the checkpoint's ack), or a slow reader with too much queued
 * towards it (until its buffer is down to a quarter of the high-water mark). Reading stops once
 * for any number of causes and starts again when none is left; TCP pushes back on the client.
 */
export class FlowControl {
  private readonly paused = new Set<PauseCause>();
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: StreamSink,
    private readonly settings: Pick<
      DurabilitySettings,
      "maxUnackedFrames" | "outboundHighWaterBytes"
    >,
  ) {}

  get causes(): ReadonlySet<PauseCause> {
    return this.paused;
  }

  /** After a message's frames, `unacked` of them not yet durable. */
  afterFrames(unacked: number): void {
    if (unacked >= this.settings.maxUnackedFrames) this.pause("unacked");
    if (this.sink.bufferedAmount >= this.settings.outboundHighWaterBytes) {
      this.pause("outbound");
      this.watchDrain();
    }
  }

  /** A checkpoint made the frames read so far durable. */
  acked(): void {
    this.unpause("unacked");
  }

  /** The session stopped: the buffer is no longer watched (and reading never resumed here). */
  stop(): void {
    clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  private pause(cause: PauseCause): void {
    if (this.paused.size === 0) this.sink.pauseReading();
    this.paused.add(cause);
  }

  private unpause(cause: PauseCause): void {
    if (!this.paused.delete(cause)) return;
    if (this.paused.size === 0) this.sink.resumeReading();
  }

  /** A slow reader: read no more of its frames until what we owe it has mostly gone out. */
  private watchDrain(): void {
    if (this.drainTimer) return;
    const lowWater = this.settings.outboundHighWaterBytes / 4;
    this.drainTimer = setInterval(() => {
      if (this.sink.bufferedAmount > lowWater) return;
      this.stop();
      this.unpause("outbound");
    }, DRAIN_POLL_MS);
  }
}
