/**
 * A recording played in a loop for as long as a soak lasts, from a few starting points (so that
 * sessions are not in step): the text of frame k of each loop, built on the fly (an hour of
 * frames would be 150 MB of text), and, from the engine run once per starting point, which frames
 * make an event (those are timed) and how many repetitions the first n frames count (every
 * session's summary is checked against it).
 */
import { type CompiledSpec, createEngine } from "@movement-detection/movespec";

type Frame = { seq: number; t: number; keypoints: number[][] };

export interface LoopedRecording {
  readonly offsets: readonly number[];
  /** The `frame` message for frame k (seq k, 30 fps) of the loop starting at offsets[loop]. */
  frameMessage(loop: number, k: number): string;
  /** Whether frame k of that loop makes at least one event. */
  makesEvent(loop: number, k: number): boolean;
  /** Repetitions counted by the first n frames of that loop. */
  countAfter(loop: number, n: number): number;
}

export function loopRecording(
  spec: CompiledSpec,
  recording: readonly Frame[],
  options: { loops: number; maxFrames: number; fps: number },
): LoopedRecording {
  const keypoints = recording.map((frame) => JSON.stringify(frame.keypoints));
  const offsets = Array.from({ length: options.loops }, (_, i) =>
    Math.floor((i * recording.length) / options.loops),
  );
  const time = (k: number) => Math.round((k / options.fps) * 1e4) / 1e4;
  const events: Uint8Array[] = [];
  const counts: Int32Array[] = [];
  for (const offset of offsets) {
    const engine = createEngine(spec);
    const makes = new Uint8Array(options.maxFrames);
    const count = new Int32Array(options.maxFrames + 1);
    let reps = 0;
    for (let k = 0; k < options.maxFrames; k += 1) {
      const frame = recording[(offset + k) % recording.length];
      const result = engine.push({ seq: k, t: time(k), keypoints: frame.keypoints });
      if (!result.ok) throw new Error(`frame ${k} of the loop rejected: ${result.message}`);
      if (result.events.length > 0) makes[k] = 1;
      for (const event of result.events) if (event.type === "rep.completed") reps += 1;
      count[k + 1] = reps;
    }
    events.push(makes);
    counts.push(count);
  }
  const check = (k: number) => {
    if (k >= options.maxFrames)
      throw new Error(`the loop was prepared for ${options.maxFrames} frames`);
  };
  return {
    offsets,
    frameMessage(loop, k) {
      check(k);
      const index = (offsets[loop] + k) % recording.length;
      return `{"type":"frame","seq":${k},"t":${time(k)},"keypoints":${keypoints[index]}}`;
    },
    makesEvent: (loop, k) => events[loop][k] === 1,
    countAfter: (loop, n) => counts[loop][n],
  };
}
