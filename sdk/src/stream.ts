import { encodeBinaryFrames, KEYPOINTS_PER_FRAME } from "./binary-frames.js";
import {
  type Ack,
  type DetectionEvent,
  type End,
  type ErrorMessage,
  type EventMessage,
  type Hello,
  type PoseFrame,
  RECONNECT_CLOSE_CODES,
  type Ready,
  type Warning,
} from "./generated/api.js";
import {
  defaultWebSocketFactory,
  OPEN,
  type WebSocketFactory,
  type WebSocketLike,
} from "./websocket.js";

export interface StreamClientOptions {
  /** From POST /api/detection/sessions. */
  readonly streamUrl: string;
  readonly runtimeToken: string;
  /** `blazepose-33` (default) or `coco-17`. */
  readonly topology?: Hello["topology"];
  /** Image width / height, when it is not the MoveSpec's. */
  readonly aspectRatio?: number;
  /**
   * Frames per message: 1 sends `frame` messages, more sends `frames` batches (at most ~45 in
   * JSON, ~118 BlazePose frames in binary: a message stays under 64 KiB).
   */
  readonly batchSize?: number;
  /**
   * `json` (default) or `binary`: frames as binary messages, float32 values (docs/realtime.md,
   * "Binary frames"), about a third of the bytes and much less work for both ends. A batch whose
   * keypoints do not share one layout goes as JSON.
   */
  readonly frameEncoding?: "json" | "binary";
  /** Most frames sent and not yet acknowledged before `send` waits (default 6,000). */
  readonly maxUnacked?: number;
  /** Most bytes waiting in the socket before `send` waits (default 512 KiB). */
  readonly maxBufferedBytes?: number;
  /** Reconnect attempts after the connection is lost (default 20; backoff 250 ms growing to 2 s). */
  readonly reconnectAttempts?: number;
  /** How long an attachment may take, from opening the socket to `ready` (default 10 s). */
  readonly handshakeTimeoutMs?: number;
  /**
   * A `ping` goes out when nothing came from the server for this long (default 5 s; the server
   * answers `pong`), and a connection silent for `stallTimeoutMs` (default 15 s) is taken as
   * lost: a network that drops packets without closing the connection is reconnected too.
   */
  readonly pingIntervalMs?: number;
  readonly stallTimeoutMs?: number;
  /** Default: the global WebSocket, else the `ws` package. */
  readonly webSocket?: WebSocketFactory;
  readonly onEvent?: (event: DetectionEvent) => void;
  readonly onNotice?: (notice: Warning | ErrorMessage) => void;
  readonly onReady?: (ready: Ready) => void;
  readonly onReconnect?: (attempt: number, closeCode: number) => void;
}

/** The socket closed without a close frame (network loss, a replica killed): worth a reconnect. */
const CONNECTION_LOST = [1005, 1006];
/**
 * A live client above the frame rate: the session stays open and may be resumed at a sane rate
 * (docs/realtime.md), so the client reconnects after a pause of at least this long.
 */
const RATE_LIMITED = 4429;
const RATE_LIMITED_PAUSE_MS = 1000;

export class StreamClientError extends Error {
  constructor(
    message: string,
    readonly closeCode: number,
    readonly notice?: ErrorMessage,
  ) {
    super(message);
    this.name = "StreamClientError";
  }
}

/**
 * A resilient client of the realtime stream (contract 1), for browsers and Node:
 *
 *   const stream = client.openStream(session);             // or new StreamClient({...})
 *   await stream.connect();                                 // hello -> ready
 *   const printing = (async () => { for await (const e of stream.events()) console.log(e); })();
 *   for (const frame of frames) await stream.send(frame);   // waits when the server pushes back
 *   const end = await stream.finalize();                    // every event, then `end`
 *   await printing;
 *
 * - keeps every frame until an `ack` covers it, and after a reconnect resends exactly those above
 *   the `last_seq` of the server's `ready` (a resent frame the server has is ignored: never twice);
 * - reconnects with backoff on 1001, 1011, 1013 and a lost connection, resuming from the last
 *   acknowledged frame, after a pause on 4429 (rate limited: the session stays open), and gives
 *   up on the final codes (4401, 4404, 4409, 4410, 1000, 1008, 1009);
 * - hands each event over once, by `event_seq`, and says `last_event_seq` in its hello so the
 *   server does not send the ones it already has;
 * - backpressure: `send` waits while too much is unacknowledged or unsent.
 */
export class StreamClient {
  private socket: WebSocketLike | undefined;
  private unacked: PoseFrame[] = [];
  private batch: PoseFrame[] = [];
  private lastEventSeq = 0;
  private lastError: ErrorMessage | undefined;
  private ended: End | undefined;
  private failed: StreamClientError | undefined;
  private ready: Ready | undefined;
  private waiters: (() => void)[] = [];
  private connecting: Promise<Ready> | undefined;
  /** The last flush in line: frames leave in the order `send` was called, awaited or not. */
  private sending: Promise<void> = Promise.resolve();
  /** Frames to send again after a `ready`, before any new one. */
  private resendQueue: PoseFrame[] = [];
  /**
   * A live session's pace: frames leave at most at 90 % of the server's `live_max_fps` (a
   * bucket of one second's worth, full at each `ready`), resends after a reconnect included,
   * so that neither a resume nor a fast source trips the server's limit (4429).
   */
  private pace: { tokens: number; at: number; rate: number } | undefined;
  private finalizeSent = false;
  private stopped = false;
  private eventQueue: DetectionEvent[] | undefined;
  /** How many times the client reconnected. */
  reconnects = 0;

  constructor(private readonly options: StreamClientOptions) {}

  /** Opens the stream and resolves with the server's `ready` (the same, once open). */
  connect(): Promise<Ready> {
    // A second attachment would replace this one (4409): once open, there is nothing to do.
    if (this.ready && this.socket?.readyState === OPEN && !this.connecting) {
      return Promise.resolve(this.ready);
    }
    this.connecting ??= this.open()
      .catch((error: unknown) => {
        if (error instanceof StreamClientError && this.shouldReconnect(error.closeCode)) {
          return this.reconnect(error.closeCode);
        }
        this.failed ??= error as StreamClientError;
        throw error;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  /** Queues one frame; resolves when it is on its way (waits while the server pushes back). */
  async send(frame: PoseFrame): Promise<void> {
    this.batch.push(frame);
    if (this.batch.length >= (this.options.batchSize ?? 1)) await this.flush();
  }

  /**
   * Sends any frames still batched. Calls are served in order: a camera callback that does not
   * await `send` must not have a later frame overtake an earlier one while the stream waits
   * (the server takes a lower `seq` after a higher one for a resend, and ignores it).
   */
  flush(): Promise<void> {
    if (this.batch.length === 0) return this.sending;
    const frames = this.batch;
    this.batch = [];
    const turn = this.sending.then(async () => {
      await this.waitForRoom();
      await this.drainResends();
      await this.paced(frames.length);
      for (const frame of frames) this.unacked.push(frame);
      this.transmit(frames);
    });
    // The next in line waits for this one, failed or not (a failure throws for each anyway).
    this.sending = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the session: every frame is evaluated, the summary event arrives, then `end`. */
  async finalize(): Promise<End> {
    await this.flush();
    this.finalizeSent = true;
    this.rawSend('{"type":"finalize"}');
    return this.waitForEnd();
  }

  /** Resolves once the server acknowledged (made durable) every frame sent so far. */
  async acknowledged(): Promise<void> {
    await this.flush();
    for (;;) {
      if (this.failed) throw this.failed;
      if (this.unacked.length === 0) return;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves with `end` once the server ends the session (rejects if the stream fails). */
  waitForEnd(): Promise<End> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.ended) resolve(this.ended);
        else if (this.failed) reject(this.failed);
        else this.waiters.push(check);
      };
      check();
    });
  }

  /**
   * The detection events from now on, each once, until the session ends (then the iteration
   * finishes) or the stream fails (then it throws). Call it before sending frames.
   */
  async *events(): AsyncIterableIterator<DetectionEvent> {
    const queue: DetectionEvent[] = [];
    this.eventQueue = queue;
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      if (this.failed) throw this.failed;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Closes the socket (the session stays open on the server until finalized or idle). */
  close(): void {
    this.stopped = true;
    this.failed ??= new StreamClientError("closed by the client", 1000);
    this.socket?.close(1000, "client done");
    this.wake();
  }

  /** Frames the server has made durable, as of its last `ready`. */
  get acceptedFramesAcknowledged(): number {
    return this.ready?.accepted_frames_total ?? 0;
  }

  private async waitForRoom(): Promise<void> {
    const maxUnacked = this.options.maxUnacked ?? 6000;
    const maxBuffered = this.options.maxBufferedBytes ?? 512 * 1024;
    for (;;) {
      if (this.failed) throw this.failed;
      if (this.ended) throw new StreamClientError(`the session ended (${this.ended.status})`, 1000);
      const socket = this.socket;
      const open = socket?.readyState === OPEN && this.ready !== undefined;
      if (open && this.unacked.length < maxUnacked && socket.bufferedAmount < maxBuffered) return;
      await new Promise<void>((resolve) => {
        // bufferedAmount has no event: look again shortly. The waiter leaves the list when its
        // timer ends it: a stalled connection must not pile up hundreds of them a second.
        const done = () => {
          clearTimeout(timer);
          const at = this.waiters.indexOf(done);
          if (at >= 0) this.waiters.splice(at, 1);
          resolve();
        };
        const timer = setTimeout(done, open ? 5 : 20);
        this.waiters.push(done);
      });
    }
  }

  /**
   * Sends frames as one message, or as several when one would pass the server's message limit
   * (`ready.limits.max_message_bytes`): a batch is a number of frames, but frames written with
   * many digits, or many keypoints, make some batches too large for it (closed 1009).
   */
  private transmit(frames: readonly PoseFrame[]): void {
    const message = this.encode(frames);
    const limit = this.ready?.limits?.max_message_bytes || DEFAULT_MAX_MESSAGE_BYTES;
    if (frames.length > 1 && byteLength(message, limit) > limit) {
      const half = Math.ceil(frames.length / 2);
      this.transmit(frames.slice(0, half));
      this.transmit(frames.slice(half));
      return;
    }
    this.rawSend(message);
  }

  private encode(frames: readonly PoseFrame[]): string | Uint8Array {
    if (this.ready?.frame_encoding === "binary") {
      const bytes = encodeBinaryFrames(frames, KEYPOINTS_PER_FRAME[this.ready.topology]);
      if (bytes) return bytes;
    }
    if (frames.length === 1) {
      const [frame] = frames;
      return `{"type":"frame","seq":${frame.seq},"t":${frame.t},"keypoints":${JSON.stringify(frame.keypoints)}}`;
    }
    return JSON.stringify({ type: "frames", frames });
  }

  private rawSend(text: string | Uint8Array): void {
    if (this.socket?.readyState === OPEN && this.ready) this.socket.send(text);
    // Otherwise the frames wait in `unacked` and go out after the next `ready`.
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async open(): Promise<Ready> {
    const factory = this.options.webSocket ?? (await defaultWebSocketFactory());
    return new Promise((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = factory(this.options.streamUrl);
      } catch (error) {
        reject(
          new StreamClientError(
            `cannot open ${this.options.streamUrl}: ${(error as Error).message}`,
            1006,
          ),
        );
        return;
      }
      this.socket = socket;
      this.ready = undefined;
      let settled = false;
      /** Given up on (no ready in time, or silent too long): its later events mean nothing. */
      let abandoned = false;
      let lastHeard = performance.now();
      const abandon = (): void => {
        abandoned = true;
        clearTimeout(handshake);
        clearInterval(liveness);
        if (this.socket === socket) this.socket = undefined;
        try {
          // ws can drop the connection at once; a browser's close waits for the other end.
          const terminate = (socket as { terminate?: () => void }).terminate;
          if (terminate) terminate.call(socket);
          else socket.close(1000, "stalled");
        } catch {
          // already closed
        }
      };
      const handshake = setTimeout(() => {
        if (settled) return;
        settled = true;
        abandon();
        reject(new StreamClientError("no ready from the server in time", CONNECTION_LOST[1]));
        this.wake();
      }, this.options.handshakeTimeoutMs ?? 10_000);
      const pingEveryMs = this.options.pingIntervalMs ?? 5000;
      const stallMs = this.options.stallTimeoutMs ?? 15_000;
      const liveness = setInterval(
        () => {
          if (!settled || abandoned) return;
          const silentMs = performance.now() - lastHeard;
          if (silentMs >= stallMs) {
            abandon();
            this.lost(CONNECTION_LOST[1]);
          } else if (silentMs >= pingEveryMs && socket.readyState === OPEN) {
            socket.send('{"type":"ping"}');
          }
        },
        Math.max(10, Math.min(pingEveryMs, stallMs) / 2),
      );
      // Neither timer keeps a Node process alive on its own.
      (handshake as { unref?: () => void }).unref?.();
      (liveness as { unref?: () => void }).unref?.();
      socket.addEventListener("open", () => {
        const hello: Hello = { type: "hello", runtime_token: this.options.runtimeToken };
        if (this.options.topology) hello.topology = this.options.topology;
        if (this.options.aspectRatio) hello.aspect_ratio = this.options.aspectRatio;
        if (this.lastEventSeq > 0) hello.last_event_seq = this.lastEventSeq;
        if (this.options.frameEncoding === "binary") hello.frame_encoding = "binary";
        socket.send(JSON.stringify(hello));
      });
      socket.addEventListener("message", (event) => {
        if (abandoned) return;
        lastHeard = performance.now();
        let message: { type?: string };
        try {
          message = JSON.parse(String(event.data));
        } catch {
          return;
        }
        if (message.type === "ready") {
          clearTimeout(handshake);
          this.ready = message as Ready;
          this.resendAfter(this.ready.last_seq ?? -1);
          this.options.onReady?.(this.ready);
          settled = true;
          resolve(this.ready);
          this.wake();
        } else this.onMessage(message);
      });
      socket.addEventListener("error", () => undefined);
      socket.addEventListener("close", (event) => {
        clearTimeout(handshake);
        clearInterval(liveness);
        if (abandoned) return;
        const code = event.code;
        if (this.socket === socket) this.socket = undefined;
        if (!settled) {
          // Not attached: whoever called open() decides whether to try again.
          settled = true;
          reject(this.closeError(code));
        } else this.lost(code);
        this.wake();
      });
    });
  }

  /** An attached connection is gone (closed with `code`, or given up on): reconnect or fail. */
  private lost(code: number): void {
    if (!this.ended && !this.stopped) {
      if (this.shouldReconnect(code)) this.reconnect(code).catch(() => undefined);
      else this.failed ??= this.closeError(code);
    }
    this.wake();
  }

  private shouldReconnect(code: number): boolean {
    return (
      !this.stopped &&
      !this.ended &&
      (RECONNECT_CLOSE_CODES.includes(code) ||
        CONNECTION_LOST.includes(code) ||
        code === RATE_LIMITED)
    );
  }

  private closeError(code: number): StreamClientError {
    const notice = this.lastError;
    return new StreamClientError(
      `stream closed with ${code}${notice ? `: ${notice.code} ${notice.message}` : ""}`,
      code,
      notice,
    );
  }

  private async reconnect(code: number): Promise<Ready> {
    const attempts = this.options.reconnectAttempts ?? 20;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      this.options.onReconnect?.(attempt, code);
      const backoff = Math.min(250 * attempt, 2000);
      const pause = code === RATE_LIMITED ? Math.max(backoff, RATE_LIMITED_PAUSE_MS) : backoff;
      await new Promise((resolve) => setTimeout(resolve, pause));
      if (this.stopped) break;
      try {
        const ready = await this.open();
        this.reconnects += 1;
        return ready;
      } catch (error) {
        if (error instanceof StreamClientError && !this.shouldReconnect(error.closeCode)) {
          this.failed ??= error;
          this.wake();
          throw error;
        }
      }
    }
    this.failed ??= new StreamClientError("could not reconnect", code);
    this.wake();
    throw this.failed;
  }

  /**
   * After `ready`: forget what the server has, and queue what it lost to be sent again first,
   * at the session's pace (a flush in line drains the queue before its own frames).
   */
  private resendAfter(lastSeq: number): void {
    this.unacked = this.unacked.filter((frame) => frame.seq > lastSeq);
    this.resendQueue = [...this.unacked];
    const live = this.ready?.mode === "live" ? this.ready.limits?.live_max_fps : undefined;
    const rate = live ? Math.max(1, Math.floor(live * 0.9)) : undefined;
    this.pace = rate ? { tokens: rate, at: performance.now(), rate } : undefined;
    const resend = this.sending.then(async () => {
      await this.drainResends();
      if (this.finalizeSent) this.rawSend('{"type":"finalize"}');
    });
    this.sending = resend.catch(() => undefined);
  }

  /** Sends the queued resends, paced; stops when the socket is gone (the next ready requeues). */
  private async drainResends(): Promise<void> {
    const batchSize = Math.max(this.options.batchSize ?? 1, 1);
    while (this.resendQueue.length > 0) {
      const batch = this.resendQueue.slice(0, batchSize);
      await this.paced(batch.length);
      if (!(this.socket?.readyState === OPEN && this.ready)) return;
      this.resendQueue = this.resendQueue.slice(batch.length);
      this.transmit(batch);
    }
  }

  /** Waits until the live pace lets `count` frames go (at once when not live). */
  private async paced(count: number): Promise<void> {
    const pace = this.pace;
    if (!pace) return;
    const wanted = Math.min(count, pace.rate);
    for (;;) {
      const now = performance.now();
      pace.tokens = Math.min(pace.rate, pace.tokens + ((now - pace.at) * pace.rate) / 1000);
      pace.at = now;
      if (pace.tokens >= wanted) {
        pace.tokens -= wanted;
        return;
      }
      await new Promise((resolve) =>
        setTimeout(resolve, Math.ceil(((wanted - pace.tokens) * 1000) / pace.rate)),
      );
      if (this.failed || this.ended) return;
    }
  }

  private onMessage(message: { type?: string }): void {
    switch (message.type) {
      case "event": {
        const event = (message as EventMessage).event;
        if (event.event_seq <= this.lastEventSeq) return;
        this.lastEventSeq = event.event_seq;
        this.options.onEvent?.(event);
        if (this.eventQueue) {
          this.eventQueue.push(event);
          this.wake();
        }
        return;
      }
      case "ack": {
        const lastSeq = (message as Ack).last_seq;
        if (lastSeq !== undefined) {
          let drop = 0;
          while (drop < this.unacked.length && this.unacked[drop].seq <= lastSeq) drop += 1;
          if (drop > 0) this.unacked = this.unacked.slice(drop);
        }
        this.wake();
        return;
      }
      case "warning":
        this.options.onNotice?.(message as Warning);
        return;
      case "error":
        this.lastError = message as ErrorMessage;
        this.options.onNotice?.(this.lastError);
        return;
      case "end":
        this.ended = message as End;
        this.wake();
        return;
      default:
    }
  }
}

/** The contract's message limit, for a server whose `ready` does not say. */
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

/** UTF-8 bytes of a message, counted only when they could pass `limit` (3 bytes a character). */
function byteLength(message: string | Uint8Array, limit: number): number {
  if (typeof message !== "string") return message.byteLength;
  let bytes = message.length;
  if (bytes * 3 <= limit) return bytes;
  for (let i = 0; i < message.length; i++) {
    const code = message.charCodeAt(i);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
