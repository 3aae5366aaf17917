/**
 * A resilient client of the realtime stream (contract 1) for Node, on the `ws` package.
 *
 *   const client = new StreamClient({ streamUrl, runtimeToken, onEvent: (e) => console.log(e) });
 *   await client.connect();
 *   for (const frame of frames) await client.send(frame);   // waits when the server pushes back
 *   const end = await client.finalize();                     // all events, then {status, ...}
 *
 * What it does for you:
 * - keeps every frame the server has not acknowledged (`ack`), and after a reconnect resends
 *   exactly those above the `last_seq` the server's `ready` reports;
 * - reconnects when the connection drops or the service restarts (not when the session ended,
 *   the token was refused, or another attachment took over);
 * - hands each event to `onEvent` once, by `event_seq`, even if the server replays some after a
 *   resume, and tells the server (hello `last_event_seq`) which ones it already has;
 * - batches frames into `frames` messages when `batchSize` > 1 (below the 64 KiB message limit);
 * - applies backpressure: `send` waits while too much is unacknowledged or unsent.
 */
import WebSocket from "ws";

export interface PoseFrame {
  readonly seq: number;
  readonly t: number;
  /** In the topology's order; null when the pose model found no person in the picture. */
  readonly keypoints: readonly (readonly number[])[] | null;
}

/** A detection event (detection-event.v1): `type`, `event_seq`, `seq`, `t` and its payload. */
export type DetectionEvent = { type: string; event_seq: number; seq: number; t: number } & Record<
  string,
  unknown
>;

export interface ReadyMessage {
  type: "ready";
  session_id: string;
  status: string;
  mode: string;
  topology: string;
  accepted_frames_total: number;
  last_seq?: number;
}

export interface EndMessage {
  type: "end";
  status: string;
  accepted_frames_total: number;
  terminal_outcome?: string;
  error_code?: string;
  error_message?: string;
}

export interface ServerNotice {
  type: "warning" | "error";
  code: string;
  message: string;
  seq?: number;
}

export interface StreamClientOptions {
  readonly streamUrl: string;
  readonly runtimeToken: string;
  /** `blazepose-33` (default) or `coco-17`. */
  readonly topology?: string;
  /** Frames per message: 1 sends `frame` messages, more sends `frames` batches. */
  readonly batchSize?: number;
  /** Send the token as `Authorization: Bearer` on the upgrade rather than in `hello`. */
  readonly tokenInHeader?: boolean;
  /** Most frames sent but not yet acknowledged before `send` waits (default 6000). */
  readonly maxUnacked?: number;
  /** Reconnect attempts after an unexpected close (default 20, 250 ms apart, growing). */
  readonly reconnectAttempts?: number;
  readonly onEvent?: (event: DetectionEvent) => void;
  readonly onNotice?: (notice: ServerNotice) => void;
  readonly onReady?: (ready: ReadyMessage) => void;
  readonly onReconnect?: (attempt: number, closeCode: number) => void;
}

/** Close codes after which reconnecting cannot help. */
const FINAL_CLOSE_CODES = new Set([1000, 1008, 1009, 4401, 4404, 4409, 4410]);
const MAX_BUFFERED_BYTES = 512 * 1024;

export class StreamClientError extends Error {
  constructor(
    message: string,
    readonly closeCode: number,
    readonly notice?: ServerNotice,
  ) {
    super(message);
    this.name = "StreamClientError";
  }
}

export class StreamClient {
  private socket: WebSocket | undefined;
  /** Frames not yet acknowledged, oldest first. */
  private unacked: PoseFrame[] = [];
  private batch: PoseFrame[] = [];
  private lastEventSeq = 0;
  private lastError: ServerNotice | undefined;
  private ended: EndMessage | undefined;
  private failed: StreamClientError | undefined;
  private ready: ReadyMessage | undefined;
  private waiters: (() => void)[] = [];
  private connecting: Promise<ReadyMessage> | undefined;
  private finalizeSent = false;
  private stopped = false;
  /** How many times the client reconnected. */
  reconnects = 0;

  constructor(private readonly options: StreamClientOptions) {}

  /** Opens the stream and resolves with the server's `ready`. */
  connect(): Promise<ReadyMessage> {
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

  /** Sends any frames still batched. */
  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const frames = this.batch;
    this.batch = [];
    await this.waitForRoom();
    for (const frame of frames) this.unacked.push(frame);
    this.transmit(frames);
  }

  /** Ends the session: every frame is evaluated, the summary arrives, then `end`. */
  async finalize(): Promise<EndMessage> {
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

  /** Resolves with `end` once the server ends the session (or rejects if the stream fails). */
  waitForEnd(): Promise<EndMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.ended) resolve(this.ended);
        else if (this.failed) reject(this.failed);
        else this.waiters.push(check);
      };
      check();
    });
  }

  /** Closes the socket (the session stays open on the server until finalized or idle). */
  close(): void {
    this.stopped = true;
    this.failed ??= new StreamClientError("closed by the client", 1000);
    this.socket?.close(1000, "client done");
    this.wake();
  }

  get acceptedFramesAcknowledged(): number {
    return this.ready?.accepted_frames_total ?? 0;
  }

  private async waitForRoom(): Promise<void> {
    const maxUnacked = this.options.maxUnacked ?? 6000;
    for (;;) {
      if (this.failed) throw this.failed;
      if (this.ended) throw new StreamClientError(`the session ended (${this.ended.status})`, 1000);
      const socket = this.socket;
      const open = socket?.readyState === WebSocket.OPEN && this.ready !== undefined;
      if (open && this.unacked.length < maxUnacked && socket.bufferedAmount < MAX_BUFFERED_BYTES)
        return;
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        // bufferedAmount has no event: look again shortly.
        setTimeout(resolve, open ? 2 : 20);
      });
    }
  }

  private transmit(frames: readonly PoseFrame[]): void {
    if (frames.length === 1) {
      const [frame] = frames;
      this.rawSend(
        `{"type":"frame","seq":${frame.seq},"t":${frame.t},"keypoints":${JSON.stringify(frame.keypoints)}}`,
      );
    } else {
      this.rawSend(JSON.stringify({ type: "frames", frames }));
    }
  }

  private rawSend(text: string): void {
    if (this.socket?.readyState === WebSocket.OPEN && this.ready) this.socket.send(text);
    // Otherwise the frames wait in `unacked` and go out after the next `ready`.
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private open(): Promise<ReadyMessage> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = this.options.tokenInHeader
        ? { authorization: `Bearer ${this.options.runtimeToken}` }
        : {};
      const socket = new WebSocket(this.options.streamUrl, { headers, perMessageDeflate: false });
      this.socket = socket;
      this.ready = undefined;
      let settled = false;
      socket.on("open", () => {
        socket.send(
          JSON.stringify({
            type: "hello",
            runtime_token: this.options.tokenInHeader ? undefined : this.options.runtimeToken,
            topology: this.options.topology,
            last_event_seq: this.lastEventSeq > 0 ? this.lastEventSeq : undefined,
          }),
        );
      });
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === "ready") {
          this.ready = message as ReadyMessage;
          this.resendAfter(message.last_seq ?? -1);
          this.options.onReady?.(this.ready);
          settled = true;
          resolve(this.ready);
          this.wake();
        } else this.onMessage(message);
      });
      socket.on("error", () => undefined);
      socket.on("close", (code) => {
        if (this.socket === socket) this.socket = undefined;
        if (!settled) {
          // Not attached: whoever called open() decides whether to try again.
          settled = true;
          reject(this.closeError(code));
        } else if (!this.ended && !this.stopped) {
          if (this.shouldReconnect(code)) this.reconnect(code).catch(() => undefined);
          else this.failed ??= this.closeError(code);
        }
        this.wake();
      });
    });
  }

  private shouldReconnect(code: number): boolean {
    return !this.stopped && !this.ended && !FINAL_CLOSE_CODES.has(code);
  }

  private closeError(code: number): StreamClientError {
    const notice = this.lastError;
    return new StreamClientError(
      `stream closed with ${code}${notice ? `: ${notice.code} ${notice.message}` : ""}`,
      code,
      notice,
    );
  }

  private async reconnect(code: number): Promise<ReadyMessage> {
    const attempts = this.options.reconnectAttempts ?? 20;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      this.options.onReconnect?.(attempt, code);
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * attempt, 2000)));
      if (this.stopped) break;
      try {
        const ready = await this.open();
        this.reconnects += 1;
        return ready;
      } catch (error) {
        if (error instanceof StreamClientError && FINAL_CLOSE_CODES.has(error.closeCode)) {
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

  /** After `ready`: forget what the server has, send again what it lost. */
  private resendAfter(lastSeq: number): void {
    this.unacked = this.unacked.filter((frame) => frame.seq > lastSeq);
    const batchSize = Math.max(this.options.batchSize ?? 1, 1);
    for (let i = 0; i < this.unacked.length; i += batchSize) {
      this.transmit(this.unacked.slice(i, i + batchSize));
    }
    if (this.finalizeSent) this.rawSend('{"type":"finalize"}');
  }

  private onMessage(message: Record<string, unknown>): void {
    switch (message.type) {
      case "event": {
        const event = message.event as DetectionEvent;
        if (event.event_seq <= this.lastEventSeq) return;
        this.lastEventSeq = event.event_seq;
        this.options.onEvent?.(event);
        return;
      }
      case "ack": {
        const lastSeq = message.last_seq as number | undefined;
        if (lastSeq !== undefined) {
          let drop = 0;
          while (drop < this.unacked.length && this.unacked[drop].seq <= lastSeq) drop += 1;
          if (drop > 0) this.unacked = this.unacked.slice(drop);
        }
        this.wake();
        return;
      }
      case "warning":
        this.options.onNotice?.(message as unknown as ServerNotice);
        return;
      case "error":
        this.lastError = message as unknown as ServerNotice;
        this.options.onNotice?.(this.lastError);
        return;
      case "end":
        this.ended = message as unknown as EndMessage;
        this.wake();
        return;
      default:
    }
  }
}
