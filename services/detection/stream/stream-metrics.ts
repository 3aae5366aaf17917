import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Attachments } from "./attachments.js";

/** What the realtime stream reports on the replica's /metrics (counted per message, not per frame). */
export interface StreamMetrics {
  readonly framesAccepted: Counter;
  /**
   * Frames accepted since the last scrape: added here per message (a plain addition, where a
   * counter's inc() checks its value and hashes its labels), moved into `framesAccepted` when it
   * is collected.
   */
  readonly tally: { framesAccepted: number };
  readonly framesRejected: Counter;
  readonly eventsSent: Counter;
  readonly checkpoints: Counter<"result">;
  /** Size of each engine snapshot written: the state a session keeps, bounded whatever its length. */
  readonly checkpointBytes: Histogram;
  /**
   * From a frames message reaching its session to each event it produced being handed to the
   * socket (the engine's evaluation, synchronous), by session mode; no session id as a label.
   */
  readonly frameToEvent: Histogram<"mode">;
}

export function createStreamMetrics(registry: Registry, attachments: Attachments): StreamMetrics {
  new Gauge({
    name: "detection_attached_sessions",
    help: "Sessions attached (processed) on this replica.",
    registers: [registry],
    collect() {
      this.set(attachments.size);
    },
  });
  new Gauge({
    name: "detection_paused_streams",
    help: "Attached streams whose reading is paused, by cause (unacked frames, slow reader).",
    labelNames: ["cause"],
    registers: [registry],
    collect() {
      const counts = attachments.pausedCounts();
      this.set({ cause: "unacked" }, counts.unacked);
      this.set({ cause: "outbound" }, counts.outbound);
    },
  });
  const tally = { framesAccepted: 0 };
  return {
    framesAccepted: new Counter({
      name: "detection_frames_accepted_total",
      help: "Frames accepted by the engine.",
      registers: [registry],
      collect() {
        this.inc(tally.framesAccepted);
        tally.framesAccepted = 0;
      },
    }),
    tally,
    framesRejected: new Counter({
      name: "detection_frames_rejected_total",
      help: "Frames rejected (malformed, out of order, ...), resends not included.",
      registers: [registry],
    }),
    eventsSent: new Counter({
      name: "detection_events_sent_total",
      help: "Detection events sent to clients.",
      registers: [registry],
    }),
    checkpoints: new Counter({
      name: "detection_checkpoints_total",
      help: "Checkpoints written, by result.",
      labelNames: ["result"],
      registers: [registry],
    }),
    checkpointBytes: new Histogram({
      name: "detection_checkpoint_bytes",
      help: "Size of the engine state in each checkpoint (JSON bytes); it does not grow with the session.",
      buckets: [512, 1024, 2048, 4096, 8192, 16_384, 65_536, 262_144],
      registers: [registry],
    }),
    frameToEvent: new Histogram({
      name: "detection_frame_to_event_seconds",
      help: "Time from a frames message reaching its session to each resulting event being sent.",
      labelNames: ["mode"],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
  };
}
