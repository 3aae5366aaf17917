import type { CompiledSpec } from "@movement-detection/movespec";
import { createEngine, type TopologyName } from "@movement-detection/movespec";
import type { PlotSample } from "@movement-detection/movespec/plot";
import type { RecordedFrame } from "./recording.js";

/**
 * The signals of a run, frame by frame, for the plot. The page runs the MoveSpec engine itself
 * over the same frames (the movespec CLI's `run --plot` does the same on a terminal): the count,
 * the repetitions and the warnings still come from the service's session; this only draws what
 * the engine saw, with its phases and the adaptive ranges as they move.
 */
export function signalSamples(
  spec: CompiledSpec,
  frames: readonly RecordedFrame[],
  topology: TopologyName,
  aspectRatio?: number,
): { samples: PlotSample[]; times: number[] } {
  const engine = createEngine(spec, { topology, aspectRatio });
  const samples: PlotSample[] = [];
  const times: number[] = [];
  for (const frame of frames) {
    const pushed = engine.push(frame);
    if (!pushed.ok) continue;
    times.push(frame.t);
    samples.push({
      t: frame.t,
      values: engine.signalValues(),
      phases: engine.currentPhases(),
      ranges: engine.adaptiveRanges(),
    });
  }
  return { samples, times };
}
