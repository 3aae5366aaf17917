/** Runs a MoveSpec over a recording file, frame by frame, for `run` and `test`. */
import type { CompiledSpec } from "../compiled-spec.js";
import { createEngine, type Engine } from "../engine/engine.js";
import type { DetectionEvent, SessionSummary } from "../engine/events.js";
import type { TopologyName } from "../topology.js";
import { readRecording } from "./recording.js";

export interface ReplayHooks {
  /** After each accepted frame, with its events (the engine's state is that frame's). */
  frame?(engine: Engine, t: number, events: DetectionEvent[]): void;
  /** A line that is not a frame, or a frame the engine refused. */
  rejected?(line: number, message: string): void;
  /** Bytes of the file read so far. */
  progress?(bytesRead: number): void;
  /** When the hooks want no more frames (the reader of stdout went away). */
  stopped?(): boolean;
}

export interface ReplayResult {
  /** The events of finish(): the last ones and session.summary. */
  last: DetectionEvent[];
  summary: SessionSummary;
  rejected: number;
}

/** Throws (with a readable message) when the spec does not run on the topology. */
export async function replay(
  spec: CompiledSpec,
  file: string,
  options: { topology?: TopologyName; aspectRatio?: number; everySignal?: boolean },
  hooks: ReplayHooks = {},
): Promise<ReplayResult> {
  const engine = createEngine(spec, options);
  let rejected = 0;
  for await (const line of readRecording(file)) {
    hooks.progress?.(line.bytesRead);
    if (hooks.stopped?.()) break;
    if (line.error) {
      rejected++;
      hooks.rejected?.(line.line, line.error);
      continue;
    }
    const r = engine.push(line.frame);
    if (!r.ok) {
      rejected++;
      hooks.rejected?.(line.line, `frame rejected: ${r.reason}: ${r.message}`);
      continue;
    }
    hooks.frame?.(engine, (line.frame as { t: number }).t, r.events);
  }
  const { events, summary } = engine.finish();
  return { last: events, summary, rejected };
}
