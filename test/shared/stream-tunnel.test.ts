import type { IncomingHttpHeaders } from "node:http2";
import {
  TUNNEL_METHOD,
  tunnelledUpgrade,
  tunnelRequestHeaders,
} from "@movement-detection/shared/realtime";
import { expect } from "chai";

const PATH = "/api/detection/sessions/0190c1e2-0000-7000-8000-000000000000/stream?x=1";

describe("stream tunnel headers (a client's websocket upgrade as an HTTP/2 stream)", () => {
  const raw = [
    "Host",
    "gateway.example:8080",
    "Connection",
    "Upgrade",
    "Upgrade",
    "websocket",
    "Keep-Alive",
    "timeout=5",
    "Proxy-Connection",
    "keep-alive",
    "Transfer-Encoding",
    "chunked",
    "TE",
    "trailers",
    "HTTP2-Settings",
    "AAMAAABkAAQAAP__",
    "Sec-WebSocket-Key",
    "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version",
    "13",
    "Sec-WebSocket-Protocol",
    "a",
    "Sec-WebSocket-Protocol",
    "b",
    "Sec-WebSocket-Protocol",
    "c",
    "Authorization",
    "Bearer t",
    "X-Request-Id",
    "from-the-client",
    "X-Mds-Workload",
    "gateway",
  ];
  const replaced = new Set(["x-request-id", "x-mds-workload"]);

  it("drops HTTP/1.1's connection-specific headers and the replaced ones, keeps the rest", () => {
    const headers = tunnelRequestHeaders(PATH, raw, replaced, { "X-Request-Id": "ours" });
    expect(headers).to.deep.equal({
      ":method": TUNNEL_METHOD,
      ":path": PATH,
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-version": "13",
      "sec-websocket-protocol": ["a", "b", "c"],
      authorization: "Bearer t",
      "x-request-id": "ours",
    });
  });

  it("leaves out a header HTTP/2 cannot carry rather than lose the shared connection over it", () => {
    const odd = [
      "X-Ok",
      "v\u00e9 \t1",
      "X\u00e9",
      "1",
      "x y",
      "1",
      "X-Ctl",
      "a\u0001b",
      "X-Wide",
      "\u0100",
    ];
    expect(tunnelRequestHeaders(PATH, odd, new Set(), {})).to.deep.equal({
      ":method": TUNNEL_METHOD,
      ":path": PATH,
      "x-ok": "v\u00e9 \t1",
    });
  });

  it("carries a header named __proto__, twice, as a header (it used to replace the prototype)", () => {
    const sent = tunnelRequestHeaders(PATH, ["__proto__", "a", "__proto__", "b"], new Set(), {});
    expect(Object.keys(sent)).to.include("__proto__");
    expect(Object.getOwnPropertyDescriptor(sent, "__proto__")?.value).to.deep.equal(["a", "b"]);
    expect(Object.getPrototypeOf(sent)).to.equal(Object.prototype);
  });

  it("reads the stream's headers back into the upgrade request the websocket server expects", () => {
    const sent = tunnelRequestHeaders(PATH, raw, replaced, {});
    const received = { ...sent, ":authority": "10.0.0.7:8081", ":scheme": "https" };
    const upgrade = tunnelledUpgrade(received as unknown as IncomingHttpHeaders);
    expect(upgrade).to.deep.equal({
      method: "GET",
      url: PATH,
      headers: {
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
        "sec-websocket-protocol": ["a", "b", "c"],
        authorization: "Bearer t",
        connection: "Upgrade",
        upgrade: "websocket",
      },
    });
  });

  it("is not a tunnel without POST or a path", () => {
    expect(tunnelledUpgrade({ ":method": "GET", ":path": PATH })).to.equal(undefined);
    expect(tunnelledUpgrade({ ":method": "CONNECT", ":authority": "x:1" })).to.equal(undefined);
    expect(tunnelledUpgrade({ ":method": TUNNEL_METHOD })).to.equal(undefined);
  });

  it("never lets a stream header pose as a pseudo-header or the connection's own", () => {
    const upgrade = tunnelledUpgrade({
      ":method": TUNNEL_METHOD,
      ":path": PATH,
      connection: "close",
      upgrade: "h2c",
    });
    expect(upgrade?.headers).to.deep.equal({ connection: "Upgrade", upgrade: "websocket" });
  });
});
