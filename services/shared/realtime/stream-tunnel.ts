import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http2";

/**
 * The hop between the gateway and a detection replica carries every client websocket of that
 * pair on one HTTP/2 connection: a stream per websocket, whose body, both ways, is exactly the
 * byte stream of the websocket connection after its upgrade request (the replica's
 * `HTTP/1.1 101` answer, then websocket frames). The upgrade request itself travels as the
 * stream's headers: `POST` to the public stream path, the client's headers without HTTP/1.1's
 * connection-specific ones. The replica hands the stream to the same websocket server as a
 * direct HTTP/1.1 upgrade, so both speak the same protocol and enforce the same limits.
 *
 * Why: a TLS connection per websocket cost each forwarded message a socket write (and a TLS
 * record) on both event loops; nghttp2 gathers the writes of all streams of one event-loop turn
 * into a few (bench/detection/hop-multiplex.bench.ts), and an attach costs no handshake.
 */
export const TUNNEL_METHOD = "POST";

/**
 * Flow control: each stream may have this many bytes in flight, so a replica that stops reading
 * one websocket holds back only that client (the gateway then pauses the client's socket), never
 * the others on the connection; it is also what a paused stream may hold at the replica. 1 MiB
 * (about 30 s of live JSON frames) keeps one replay stream as fast as a TCP connection of its
 * own; 256 KiB cost a replay a quarter of its frames per second (bench/detection/README.md).
 */
const STREAM_WINDOW_BYTES = 1024 * 1024;

/** The connection's window: enough for every stream to be full at once well past 1,000 streams. */
const CONNECTION_WINDOW_BYTES = 2 ** 31 - 1;

/** More streams than a replica ever holds (HTTP/2's default leaves it to the peer, often 100). */
const MAX_CONCURRENT_STREAMS = 100_000;

/**
 * The HTTP/2 session options both ends of the hop use (http2.connect on the gateway,
 * http2.createServer on the replica). `peerMaxConcurrentStreams`: until the peer's SETTINGS
 * arrive (HTTP/2 assumes 100 and holds the 101st stream back). `maxSessionMemory`: nghttp2's
 * allowance per connection in MB (new streams are refused above it).
 */
export const TUNNEL_SESSION_OPTIONS = {
  settings: {
    initialWindowSize: STREAM_WINDOW_BYTES,
    maxConcurrentStreams: MAX_CONCURRENT_STREAMS,
    enablePush: false,
  },
  peerMaxConcurrentStreams: MAX_CONCURRENT_STREAMS,
  maxSessionMemory: 256,
} as const;

/** Opens the connection's own window (HTTP/2 starts it at 64 KiB whatever the settings say). */
export function openConnectionWindow(session: { setLocalWindowSize(size: number): void }): void {
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
}

/** HTTP/1.1 headers HTTP/2 forbids (RFC 9113 §8.2.2), and `host`, which becomes `:authority`. */
const CONNECTION_SPECIFIC = new Set([
  "connection",
  "upgrade",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "host",
  "http2-settings",
]);

/** RFC 9110 token (lowercased) and field-value characters: what HTTP/2 carries unchanged. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The stream headers for a client's upgrade request: `rawHeaders` (Node's flat name/value list)
 * without the connection-specific ones and those in `replaced`, plus `extra` (`:authority` is
 * the connection's own). A header HTTP/2 could not carry is left out (Node's HTTP/1.1 parser
 * lets none through; nghttp2 would reset the stream or end the shared connection over one).
 */
export function tunnelRequestHeaders(
  path: string,
  rawHeaders: readonly string[],
  replaced: ReadonlySet<string>,
  extra: Readonly<Record<string, string>>,
): OutgoingHttpHeaders {
  // No prototype: a header named `__proto__` (a valid token) is a header like any other.
  const headers: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (CONNECTION_SPECIFIC.has(name) || replaced.has(name)) continue;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(rawHeaders[i + 1])) continue;
    const previous = headers[name];
    if (previous === undefined) headers[name] = rawHeaders[i + 1];
    else if (Array.isArray(previous)) previous.push(rawHeaders[i + 1]);
    else headers[name] = [previous, rawHeaders[i + 1]];
  }
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  return {
    ...headers,
    ":method": TUNNEL_METHOD,
    ":path": path,
  };
}

/** The upgrade request a tunnel stands for, as the replica's websocket server reads it. */
export interface TunnelledUpgrade {
  readonly method: "GET";
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** The stream's headers read back into the upgrade request (undefined: not a tunnel). */
export function tunnelledUpgrade(headers: IncomingHttpHeaders): TunnelledUpgrade | undefined {
  const path = headers[":path"];
  if (headers[":method"] !== TUNNEL_METHOD || typeof path !== "string") return undefined;
  const upgrade: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(":")) upgrade[name] = value;
  }
  upgrade.connection = "Upgrade";
  upgrade.upgrade = "websocket";
  return { method: "GET", url: path, headers: upgrade };
}
