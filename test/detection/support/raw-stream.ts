/**
 * A bare websocket client for stream tests: every server message recorded in order, the close
 * code and reason, and small waits on both. For exact protocol control (hostile clients); the
 * well-behaved path uses examples/stream-client.
 */
import WebSocket from "ws";

// biome-ignore lint/suspicious/noExplicitAny: tests read server messages loosely in assertions
export type ServerMessage = Record<string, any> & { type: string };

export interface RawStream {
  readonly ws: WebSocket;
  readonly messages: ServerMessage[];
  send(message: unknown): void;
  sendText(text: string): void;
  /** Resolves with the first message (from the start) of `type` that matches. */
  next(
    type: string,
    match?: (message: ServerMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ServerMessage>;
  /** Resolves with the close code and reason. */
  closed(timeoutMs?: number): Promise<{ code: number; reason: string }>;
  ofType(type: string): ServerMessage[];
  close(): void;
}

/**
 * Where to connect: the gateway's public stream URL, or a replica's own listener, which answers
 * only the gateway's workload certificate over mutual TLS (see directStream).
 */
export type StreamTarget = string | { readonly url: string; readonly tls?: ClientCertificate };

export interface ClientCertificate {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer;
}

export function openRaw(
  target: StreamTarget,
  headers: Record<string, string> = {},
): Promise<RawStream> {
  const { url, tls } = typeof target === "string" ? { url: target, tls: undefined } : target;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, ...tls });
    const messages: ServerMessage[] = [];
    const listeners = new Set<() => void>();
    let closeInfo: { code: number; reason: string } | undefined;
    const notify = () => {
      for (const listener of [...listeners]) listener();
    };
    ws.on("message", (data) => {
      messages.push(JSON.parse(data.toString()));
      notify();
    });
    ws.on("close", (code, reason) => {
      closeInfo = { code, reason: reason.toString() };
      notify();
    });
    ws.on("error", () => undefined);
    const waitFor = <T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
      new Promise((done, fail) => {
        const check = () => {
          const value = probe();
          if (value === undefined) return;
          clearTimeout(timer);
          listeners.delete(check);
          done(value);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          fail(
            new Error(
              `timed out waiting for ${what}; got ${JSON.stringify(messages.slice(-5))} close=${JSON.stringify(closeInfo)}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    const stream: RawStream = {
      ws,
      messages,
      send: (message) => ws.send(JSON.stringify(message)),
      sendText: (text) => ws.send(text),
      next: (type, match = () => true, timeoutMs = 10_000) =>
        waitFor(
          () => messages.find((m) => m.type === type && match(m)),
          timeoutMs,
          `a ${type} message`,
        ),
      closed: (timeoutMs = 10_000) => waitFor(() => closeInfo, timeoutMs, "the close"),
      ofType: (type) => messages.filter((m) => m.type === type),
      close: () => ws.close(),
    };
    ws.once("open", () => resolve(stream));
    ws.once("unexpected-response", (_request, response) => {
      reject(
        Object.assign(new Error(`upgrade refused: ${response.statusCode}`), {
          statusCode: response.statusCode,
        }),
      );
    });
    ws.once("close", () => reject(new Error("closed before open")));
  });
}

/** Opens the stream and says hello; resolves once `ready` arrived. */
export async function attach(
  target: StreamTarget,
  runtimeToken: string,
  hello: Record<string, unknown> = {},
): Promise<RawStream> {
  const stream = await openRaw(target);
  stream.send({ type: "hello", runtime_token: runtimeToken, ...hello });
  await stream.next("ready");
  return stream;
}
