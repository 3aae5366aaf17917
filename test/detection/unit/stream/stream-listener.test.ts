import { createServer as createHttpServer, get } from "node:http";
import { connect as connectHttp2, createServer as createHttp2Server } from "node:http2";
import { type AddressInfo, connect, type Server } from "node:net";
import type { InternalIdentity } from "@movement-detection/shared/security";
import { expect } from "chai";
import { createStreamListener } from "../../../../services/detection/stream/stream-listener.js";

/** Under h2c (no TLS): the protocol is told by the client's first bytes. */
const H2C = { tls: undefined } as unknown as InternalIdentity;
const FIRST_BYTES_TIMEOUT_MS = 300;

describe("detection stream listener (HTTP/1.1 upgrades and the gateway's HTTP/2 on one port)", () => {
  let listener: Server;
  let port: number;
  const http1 = createHttpServer((_request, response) => response.end("http/1.1"));
  const http2 = createHttp2Server();
  http2.on("stream", (stream) => {
    stream.respond({ ":status": 200 });
    stream.end("h2");
  });

  before(async () => {
    listener = createStreamListener(H2C, http1, http2, FIRST_BYTES_TIMEOUT_MS);
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as AddressInfo).port;
  });

  after(() => {
    listener.close();
    http1.closeAllConnections();
  });

  it("hands an HTTP/1.1 request to the HTTP/1.1 server", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve(text));
      }).on("error", reject);
    });
    expect(body).to.equal("http/1.1");
  });

  it("hands an HTTP/2 connection (its preface) to the HTTP/2 server", async () => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ":path": "/" });
      let text = "";
      stream.on("data", (chunk) => (text += chunk));
      stream.on("end", () => resolve(text));
      stream.on("error", reject);
    });
    session.close();
    expect(body).to.equal("h2");
  });

  /** Raw bytes written in the given pieces; the first bytes the listener answers with. */
  function exchange(pieces: readonly Buffer[], answerBytes: number, pauseMs = 20): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let answer = Buffer.alloc(0);
      socket.on("data", (chunk) => {
        answer = Buffer.concat([answer, chunk]);
        if (answer.length >= answerBytes) {
          socket.destroy();
          resolve(answer);
        }
      });
      socket.on("error", reject);
      socket.on("connect", async () => {
        for (const piece of pieces) {
          socket.write(piece);
          await new Promise((next) => setTimeout(next, pauseMs));
        }
      });
    });
  }

  it("decides only once enough bytes came: a preface split anywhere is still HTTP/2", async () => {
    const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    const emptySettings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    for (const cut of [1, 3, 9, 13]) {
      const answer = await exchange(
        [preface.subarray(0, cut), preface.subarray(cut), emptySettings],
        9,
      );
      expect(answer[3], `cut at ${cut}: a SETTINGS frame first`).to.equal(4);
    }
  });

  it("closes a connection that sends nothing within the first-bytes timeout", async () => {
    const socket = connect(port, "127.0.0.1");
    const started = performance.now();
    await new Promise((resolve) => socket.once("close", resolve));
    expect(performance.now() - started).to.be.within(FIRST_BYTES_TIMEOUT_MS - 50, 2000);
  });

  it("keeps one whose first bytes come before the timeout, however slowly the rest follows", async () => {
    const answer = await exchange(
      [
        Buffer.from("G"),
        Buffer.from("ET / HTTP/1.1\r\nHost: x\r\n"),
        Buffer.from("Content-Length: 0\r\n\r\n"),
      ],
      12,
      FIRST_BYTES_TIMEOUT_MS * 1.5, // longer than the timeout between pieces
    );
    expect(answer.subarray(0, 12).toString("latin1")).to.equal("HTTP/1.1 200");
  });

  it("takes a request starting like the preface but leaving it for HTTP/1.1", async () => {
    const answer = await exchange(
      [Buffer.from("P"), Buffer.from("UT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")],
      12,
    );
    expect(answer.subarray(0, 12).toString("latin1")).to.equal("HTTP/1.1 200");
  });
});
