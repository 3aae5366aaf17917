import type { SessionSummary } from "@movement-detection/movespec/engine";
import type { DetectionEvent, MdsClient } from "@movement-detection/sdk";
import { parseSummary } from "./outcome.js";
import type { RecordedFrame } from "./recording.js";

export interface ReplayOutcome {
  readonly sessionId: string;
  readonly status: string;
  readonly acceptedFrames: number;
  readonly summary: SessionSummary | undefined;
  readonly events: DetectionEvent[];
  /** The stream's warnings and errors (a rejected frame, ...), as `CODE: message`. */
  readonly notices: string[];
}

/** Frames per `frames` message: the realtime contract takes batches of up to about 45. */
const BATCH = 40;

/**
 * Runs a recording through a real `replay` session: POST /api/detection/sessions, then the
 * realtime websocket (the SDK's StreamClient: hello, batches, backpressure, finalize), exactly as
 * any client would. The service decides the count; this only reports what it said.
 */
export async function replayThroughService(
  client: MdsClient,
  input: {
    projectId: string;
    movespecVersionId: string;
    frames: readonly RecordedFrame[];
    topology: "blazepose-33" | "coco-17";
    /** Width / height of the video the keypoints are normalised to (a recording from a video). */
    aspectRatio?: number;
    onProgress: (sent: number) => void;
    /** The stream lost its connection and tries again (`attempt` from 1). */
    onReconnect: (attempt: number) => void;
  },
): Promise<ReplayOutcome> {
  const session = await client.createSession({
    body: {
      project_id: input.projectId,
      movespec_version_id: input.movespecVersionId,
      mode: "replay",
    },
  });
  const events: DetectionEvent[] = [];
  const notices: string[] = [];
  const stream = client.openStream(session, {
    batchSize: BATCH,
    topology: input.topology,
    aspectRatio: input.aspectRatio,
    onEvent: (event) => events.push(event),
    onNotice: (notice) => notices.push(`${notice.code}: ${notice.message}`),
    onReconnect: (attempt) => input.onReconnect(attempt),
  });
  try {
    await stream.connect();
    let sent = 0;
    for (const frame of input.frames) {
      await stream.send(frame as Parameters<typeof stream.send>[0]);
      sent++;
      if (sent % 200 === 0) input.onProgress(sent);
    }
    input.onProgress(sent);
    const end = await stream.finalize();
    return {
      sessionId: session.session_id,
      status: end.status,
      acceptedFrames: end.accepted_frames_total,
      summary: parseSummary(end.terminal_outcome),
      events,
      notices,
    };
  } finally {
    stream.close();
  }
}
