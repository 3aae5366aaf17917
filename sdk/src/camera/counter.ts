/**
 * The camera kit's counter: a camera (or any playing <video>) through the pose model in the
 * page, its frames through a detection session's stream, its repetitions back as events:
 *
 *   const counter = await startCounter({ session, model, source: "camera", video });
 *   for await (const event of counter.events()) if (event.type === "rep.completed") show(event.total);
 *
 * Frames are timed by the page's clock (a `live` session: the service paces them in real time).
 */
import type { DetectionEvent, End, PoseFrame, SessionCreated } from "../generated/api.js";
import { StreamClient, type StreamClientOptions } from "../stream.js";
import type { PoseModel } from "./pose-model.js";
import { loaded } from "./video-file.js";

export interface CounterStats {
  readonly frames: number;
  readonly framesWithPose: number;
  /** Whether the latest frame held a person. */
  readonly poseNow: boolean;
  /** Frames read per second of wall time since the start. */
  readonly framesPerSecond: number;
  /** The model's TensorFlow.js backend. */
  readonly backend: string;
}

export interface CounterOptions {
  /** The session to stream to (from POST /api/detection/sessions: your backend creates it). */
  readonly session: Pick<SessionCreated, "stream_url" | "runtime_token">;
  readonly model: PoseModel;
  /**
   * What to watch: `"camera"` (the kit asks for the camera and stops it at the end), a camera
   * stream of yours (played in `video`; you stop it), or a <video> element already playing.
   */
  readonly source: "camera" | MediaStream | HTMLVideoElement;
  /** Where a camera stream plays (default: a new element, not in the page). */
  readonly video?: HTMLVideoElement;
  /** For `"camera"`: what to ask for (default 640 x 480 ideally). */
  readonly camera?: MediaTrackConstraints;
  /** More options of the stream client (callbacks, batch size, encoding). */
  readonly stream?: Omit<StreamClientOptions, "streamUrl" | "runtimeToken" | "topology">;
  /** After each frame went to the stream (to draw it, to show the rate). */
  readonly onFrame?: (frame: PoseFrame, stats: CounterStats) => void;
  /** Frames stopped (the model failed, the stream gave up); `events()` throws it too. */
  readonly onFailure?: (error: unknown) => void;
}

export interface Counter {
  /**
   * Every event of the session, from its first, each once; the iteration ends after the
   * session's `session.summary` (once `stop` finalized it) and throws if the stream fails.
   * Any number of iterations may run at once.
   */
  events(): AsyncIterableIterator<DetectionEvent>;
  /** Stops reading frames, finalizes the session and resolves with its `end`. */
  stop(): Promise<End>;
  stats(): CounterStats;
  readonly video: HTMLVideoElement;
  readonly stream: StreamClient;
}

export async function startCounter(options: CounterOptions): Promise<Counter> {
  const { source } = options;
  let media: MediaStream | undefined;
  let video: HTMLVideoElement;
  if (source instanceof HTMLVideoElement) video = source;
  else {
    media =
      source === "camera"
        ? await navigator.mediaDevices.getUserMedia({
            video: options.camera ?? { width: { ideal: 640 }, height: { ideal: 480 } },
            audio: false,
          })
        : source;
    video = options.video ?? document.createElement("video");
    video.muted = true;
    video.playsInline = true;
    video.srcObject = media;
  }
  const release = () => {
    if (!media) return;
    if (source === "camera") for (const track of media.getTracks()) track.stop();
    video.srcObject = null;
  };
  try {
    if (media) await video.play();
    await loaded(video);
    const log = eventLog();
    const stream = new StreamClient({
      batchSize: 1,
      ...options.stream,
      streamUrl: options.session.stream_url,
      runtimeToken: options.session.runtime_token,
      topology: options.model.topology,
      aspectRatio: options.stream?.aspectRatio ?? (video.videoWidth / video.videoHeight || 4 / 3),
      onEvent: (event) => {
        log.push(event);
        options.stream?.onEvent?.(event);
      },
    });
    stream.waitForEnd().then(log.end, log.fail);
    await stream.connect();
    return runLoop(options, video, stream, log, release);
  } catch (error) {
    release();
    throw error;
  }
}

function runLoop(
  options: CounterOptions,
  video: HTMLVideoElement,
  stream: StreamClient,
  log: EventLog,
  release: () => void,
): Counter {
  const started = performance.now();
  let frames = 0;
  let framesWithPose = 0;
  let poseNow = false;
  let running = true;
  let wakeStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wakeStop = resolve;
  });
  const stats = (): CounterStats => ({
    frames,
    framesWithPose,
    poseNow,
    framesPerSecond: frames / Math.max((performance.now() - started) / 1000, 1e-3),
    backend: options.model.backend,
  });
  const loop = (async () => {
    while (running) {
      // A new picture, not the one just read (a camera gives ~30 a second; the model may be slower).
      await Promise.race([newFrame(video), stopped]);
      if (!running) break;
      const keypoints = await options.model.detect(video);
      if (!running) break;
      const frame: PoseFrame = {
        seq: frames,
        t: (performance.now() - started) / 1000,
        keypoints,
      };
      frames++;
      poseNow = keypoints !== null;
      if (poseNow) framesWithPose++;
      await stream.send(frame);
      options.onFrame?.(frame, stats());
    }
  })().catch((error: unknown) => {
    running = false;
    log.fail(error);
    options.onFailure?.(error);
  });
  return {
    video,
    stream,
    stats,
    events: () => log.iterate(),
    async stop() {
      running = false;
      wakeStop();
      await loop;
      release();
      try {
        return await stream.finalize();
      } finally {
        stream.close();
      }
    },
  };
}

/** Resolves when the video shows a picture it has not shown before (at once without the API). */
function newFrame(video: HTMLVideoElement): Promise<void> {
  if (typeof video.requestVideoFrameCallback !== "function")
    return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => video.requestVideoFrameCallback(() => resolve()));
}

interface EventLog {
  push(event: DetectionEvent): void;
  end(): void;
  fail(error: unknown): void;
  iterate(): AsyncIterableIterator<DetectionEvent>;
}

/** The session's events, kept so that each `events()` iteration starts from the first. */
function eventLog(): EventLog {
  const events: DetectionEvent[] = [];
  let done = false;
  let failure: { error: unknown } | undefined;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  return {
    push(event) {
      events.push(event);
      wake();
    },
    end() {
      done = true;
      wake();
    },
    fail(error) {
      failure ??= { error };
      wake();
    },
    async *iterate() {
      for (let i = 0; ; ) {
        if (i < events.length) {
          yield events[i++];
          continue;
        }
        if (done) return;
        if (failure) throw failure.error;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
