/**
 * One `live` session of a soak: a looped recording sent at 30 frames per second (one frame per
 * message, catching up after a late timer so the rate holds), the latency of every frame that
 * makes an event, the warnings and the close, and a finalize that waits for `end`.
 */
import { type BenchSocket, openStream } from "./load.js";
import type { LoopedRecording } from "./looped-recording.js";

/** Where a session reports what it sees (the soak's current window). */
export interface LiveObserver {
  /** A frame's latency, and how long its session had been streaming when it was sent. */
  latency(ms: number, streamingMs: number): void;
  framesSent(count: number): void;
  warning(code: string): void;
  /** A close that is not the normal end of a finalized session. */
  unexpectedClose(code: number): void;
}

export interface SessionEnd {
  readonly status: string;
  readonly acceptedFrames: number;
  readonly count: number | undefined;
  /** From `finalize` sent to `end` received. */
  readonly ms: number;
}

const FPS = 30;
const SUMMARY_EVENT = '{"type":"event","event":{"type":"session.summary"';
const PERIOD_MS = 1000 / FPS;
/** Most frames sent on one timer tick when catching up (the live burst limit is far above). */
const MAX_CATCH_UP = 4;

export class LiveSession {
  framesSent = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly sentAt = new Map<number, number>();
  private startedAt = 0;
  private finalizing = false;

  private constructor(
    readonly sessionId: string,
    readonly loop: number,
    private readonly socket: BenchSocket,
    private readonly recording: LoopedRecording,
    private readonly observer: () => LiveObserver,
  ) {
    socket.onText((text) => this.onText(text));
    socket.ws.on("close", (code) => {
      this.stop();
      if (!(this.finalizing && code === 1000)) this.observer().unexpectedClose(code);
    });
  }

  /** Attaches (hello -> ready) and starts sending after `delayMs`. */
  static async open(
    url: string,
    session: { session_id: string; runtime_token: string },
    loop: number,
    recording: LoopedRecording,
    observer: () => LiveObserver,
    delayMs: number,
  ): Promise<LiveSession> {
    const socket = await openStream(url, session.runtime_token);
    const live = new LiveSession(session.session_id, loop, socket, recording, observer);
    live.start(delayMs);
    return live;
  }

  private start(delayMs: number): void {
    this.timer = setTimeout(() => {
      const startedAt = performance.now();
      this.startedAt = startedAt;
      const tick = () => {
        if (this.socket.ws.readyState !== this.socket.ws.OPEN) return this.stop();
        const due = Math.floor((performance.now() - startedAt) / PERIOD_MS) + 1;
        const n = Math.min(due - this.framesSent, MAX_CATCH_UP);
        for (let i = 0; i < n; i += 1) this.send();
        if (n > 0) this.observer().framesSent(n);
      };
      tick();
      this.timer = setInterval(tick, PERIOD_MS);
    }, delayMs);
  }

  private send(): void {
    const k = this.framesSent;
    if (this.recording.makesEvent(this.loop, k)) this.sentAt.set(k, performance.now());
    this.socket.ws.send(this.recording.frameMessage(this.loop, k));
    this.framesSent += 1;
  }

  private onText(text: string): void {
    // The summary answers `finalize`, not a frame, and after 20 minutes of squats it is some
    // 150 KB of JSON: parsing 30 of them in a round of churn would keep this process from timing
    // the other sessions' events.
    if (text.startsWith(SUMMARY_EVENT)) return;
    if (text.startsWith('{"type":"event"')) {
      const seq = (JSON.parse(text) as { event: { seq: number } }).event.seq;
      const at = this.sentAt.get(seq);
      if (at !== undefined) {
        this.sentAt.delete(seq);
        this.observer().latency(performance.now() - at, at - this.startedAt);
      }
    } else if (text.startsWith('{"type":"warning"') || text.startsWith('{"type":"error"')) {
      this.observer().warning((JSON.parse(text) as { code: string }).code);
    }
  }

  private stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops sending, finalizes on the stream and waits for `end`. */
  async finalize(timeoutMs = 120_000): Promise<SessionEnd> {
    this.stop();
    this.finalizing = true;
    const ended = this.socket.waitFor("end", timeoutMs);
    const started = performance.now();
    this.socket.ws.send('{"type":"finalize"}');
    const end = JSON.parse(await ended) as {
      status: string;
      accepted_frames_total: number;
      terminal_outcome?: string;
    };
    return {
      status: end.status,
      acceptedFrames: end.accepted_frames_total,
      count: end.terminal_outcome ? JSON.parse(end.terminal_outcome).count : undefined,
      ms: performance.now() - started,
    };
  }

  close(): void {
    this.stop();
    this.socket.ws.close(1000);
  }
}
