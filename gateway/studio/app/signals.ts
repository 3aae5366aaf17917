import { PLOT_TIME_AXIS, type PlotSample, plotSvg } from "../../../movespec/cli/plot-svg.js";
import type { CompiledSpec } from "../../../movespec/compiled-spec.js";
import type { DetectionEvent } from "../../../movespec/engine/events.js";
import { createEngine, type TopologyName } from "../../../movespec/index.js";
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
): { samples: PlotSample[]; times: number[] } {
  const engine = createEngine(spec, { topology });
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

/** The CLI's plot (movespec/cli/plot-svg.ts), as an element for the page. */
export function signalPlot(
  spec: CompiledSpec,
  samples: readonly PlotSample[],
  events: readonly DetectionEvent[],
  title: string,
): SVGSVGElement {
  const source = plotSvg(spec, samples, events, { title });
  const parsed = new DOMParser().parseFromString(source, "image/svg+xml");
  const svg = document.importNode(parsed.documentElement, true) as unknown as SVGSVGElement;
  // Scales with its container (narrow screens) while keeping its proportions.
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  svg.setAttribute("aria-hidden", "true");
  return svg;
}

/**
 * A vertical line over the plot at a time of the recording (the scrubber's), placed as plot-svg
 * places its samples: the first sample at the axis' left end, the last at its right end.
 */
export function plotCursor(
  svg: SVGSVGElement,
  samples: readonly PlotSample[],
): (t: number) => void {
  const t0 = samples[0]?.t ?? 0;
  const t1 = Math.max(samples[samples.length - 1]?.t ?? 1, t0 + 1e-6);
  const height = Number(svg.getAttribute("viewBox")?.split(" ")[3] ?? 0);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  line.setAttribute("id", "cursor");
  line.setAttribute("y1", String(PLOT_TIME_AXIS.top));
  line.setAttribute("y2", String(Math.max(PLOT_TIME_AXIS.top, height - 40)));
  line.setAttribute("stroke", "#111");
  line.setAttribute("stroke-width", "1.5");
  svg.append(line);
  return (t) => {
    const x = PLOT_TIME_AXIS.left + ((t - t0) / (t1 - t0)) * (PLOT_TIME_AXIS.width - 1);
    line.setAttribute("x1", x.toFixed(1));
    line.setAttribute("x2", x.toFixed(1));
  };
}
