import type { IncomingHttpHeaders } from "node:http";

/**
 * The websocket handshake headers a client must send (RFC 6455, 4.1), checked at the gateway:
 * what the replica's websocket server would refuse with a bare text/html 400 is refused here
 * with the contract's envelope instead, before any replica is asked.
 */
export interface HandshakeProblem {
  readonly message: string;
  /** Headers the refusal carries (the versions served, for a wrong version). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** 16 random bytes in base64: 22 characters and the padding. */
const KEY = /^[+/0-9A-Za-z]{22}==$/;
/** 13 is RFC 6455; 8 (its last draft) is what the replica's server (ws) still accepts. */
const VERSIONS = new Set(["13", "8"]);
/** An HTTP token (RFC 9110, 5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function handshakeProblem(headers: IncomingHttpHeaders): HandshakeProblem | undefined {
  const key = headers["sec-websocket-key"];
  if (typeof key !== "string" || !KEY.test(key)) {
    return { message: "Sec-WebSocket-Key must be 16 bytes in base64 (RFC 6455)" };
  }
  const version = headers["sec-websocket-version"];
  if (typeof version !== "string" || !VERSIONS.has(version.trim())) {
    return {
      message: "Sec-WebSocket-Version must be 13 (RFC 6455)",
      headers: { "Sec-WebSocket-Version": "13" },
    };
  }
  const protocols = headers["sec-websocket-protocol"];
  if (protocols !== undefined && !isProtocolList(protocols)) {
    return {
      message: "Sec-WebSocket-Protocol must be a comma-separated list of distinct tokens",
    };
  }
  return undefined;
}

function isProtocolList(value: string): boolean {
  const names = value.split(",").map((name) => name.trim());
  return names.every((name) => TOKEN.test(name)) && new Set(names).size === names.length;
}
