/**
 * The one WebSocket interface the stream client needs: the browser's (and Node 22+'s global)
 * WebSocket, or the `ws` package on Node 20 (an optional peer dependency, loaded only there).
 */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: "close",
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: "error", listener: (event: unknown) => void): void;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

export const OPEN = 1;

let fallback: Promise<WebSocketFactory> | undefined;

/** The platform's WebSocket, else `ws` (Node 20 has no global WebSocket). */
export function defaultWebSocketFactory(): Promise<WebSocketFactory> {
  const global = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (global) return Promise.resolve((url) => new global(url));
  // A variable, so bundlers for browsers do not try to include it.
  const name = "ws";
  fallback ??= import(name).then(
    (module: { WebSocket: new (url: string, options: object) => WebSocketLike }) => (url: string) =>
      new module.WebSocket(url, { perMessageDeflate: false }),
    () => {
      throw new Error(
        "no WebSocket here: on Node.js 20, install the `ws` package (npm install ws)",
      );
    },
  );
  return fallback;
}
