/**
 * The SDK's retry and resume rules, against scripted servers on real sockets (what the real stack
 * cannot be made to do on cue): retryable errors are retried with backoff and Retry-After is
 * honoured, non-retryable ones are not; the stream client resumes after 1001, 1011 and 1013 from
 * the last acknowledged frame, and gives up on the final 44xx codes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  MdsApiError,
  MdsClient,
  MdsNetworkError,
  StreamClient,
  StreamClientError,
} from "@movement-detection/sdk";
import { expect } from "chai";
import { type WebSocket, WebSocketServer } from "ws";

const HEALTH = { status: "ok", environment: "test", role: "gateway" };
const envelope = (code: string, reason: string, retryable: boolean) =>
  JSON.stringify({
    error: { code, message: reason, retryable, details: { reason, request_id: "r1" } },
  });

async function listen(server: Server | WebSocketServer): Promise<number> {
  await new Promise<void>((resolve) => (server as Server).listen(0, "127.0.0.1", resolve));
  return ((server as Server).address() as AddressInfo).port;
}

describe("SDK retries and stream resume (scripted servers)", function () {
  this.timeout(30_000);

  describe("HTTP retries", () => {
    let server: Server;
    let url: string;
    let answers: ((response: import("node:http").ServerResponse) => void)[];
    let seen: number[];

    beforeEach(async () => {
      answers = [];
      seen = [];
      server = createServer((_request, response) => {
        seen.push(performance.now());
        const answer = answers.shift();
        if (answer) answer(response);
        else
          response
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify(HEALTH));
      });
      url = `http://127.0.0.1:${await listen(server)}`;
    });
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("a gateway that is not there: MdsNetworkError naming the address and the system's reason", async () => {
      const closed = createServer();
      const port = await listen(closed);
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const client = new MdsClient({
        baseUrl: `http://127.0.0.1:${port}`,
        retry: { maxAttempts: 2, baseDelayMs: 1 },
      });
      const error = await client.getHealth().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(MdsNetworkError);
      expect((error as Error).message).to.equal(
        `GET http://127.0.0.1:${port}/api/health: fetch failed (ECONNREFUSED)`,
      );
    });

    it("retries a 503 after the Retry-After it names, then succeeds", async () => {
      answers.push((r) =>
        r
          .writeHead(503, { "content-type": "application/json", "retry-after": "1" })
          .end(envelope("unavailable", "DEPENDENCY_UNAVAILABLE", true)),
      );
      const client = new MdsClient({ baseUrl: url, retry: { baseDelayMs: 1 } });
      expect(await client.getHealth()).to.deep.equal(HEALTH);
      expect(seen).to.have.length(2);
      expect(seen[1] - seen[0]).to.be.at.least(950);
    });

    it("backs off on retryable errors and gives up after maxAttempts with the last error", async () => {
      for (let i = 0; i < 3; i += 1) {
        answers.push((r) =>
          r
            .writeHead(429, { "content-type": "application/json" })
            .end(envelope("resource_exhausted", "RATE_LIMITED", true)),
        );
      }
      const client = new MdsClient({ baseUrl: url, retry: { maxAttempts: 3, baseDelayMs: 5 } });
      const error = await client.getHealth().catch((e) => e);
      expect(error).to.be.instanceOf(MdsApiError);
      expect(error).to.include({ status: 429, reason: "RATE_LIMITED", retryable: true });
      expect(seen).to.have.length(3);
    });

    it("does not retry what cannot succeed, nor wait for a Retry-After beyond its limit", async () => {
      answers.push((r) =>
        r
          .writeHead(404, { "content-type": "application/json" })
          .end(envelope("not_found", "ROUTE_NOT_FOUND", false)),
      );
      const client = new MdsClient({
        baseUrl: url,
        retry: { baseDelayMs: 1, maxRetryAfterMs: 2000 },
      });
      expect(await client.getHealth().catch((e) => e)).to.include({
        status: 404,
        reason: "ROUTE_NOT_FOUND",
      });
      expect(seen).to.have.length(1);
      answers.push((r) =>
        r
          .writeHead(503, { "content-type": "application/json", "retry-after": "3600" })
          .end(envelope("unavailable", "DEPENDENCY_UNAVAILABLE", true)),
      );
      expect(await client.getHealth().catch((e) => e)).to.include({
        status: 503,
        retryAfterSeconds: 3600,
      });
      expect(seen).to.have.length(2);
    });

    it("treats a proxy's bare 502 as retryable and a lost connection as worth another try", async () => {
      answers.push((r) =>
        r.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>"),
      );
      answers.push((r) => r.socket?.destroy());
      const client = new MdsClient({ baseUrl: url, retry: { baseDelayMs: 1 } });
      expect(await client.getHealth()).to.deep.equal(HEALTH);
      expect(seen).to.have.length(3);
    });
  });

  describe("HTTP retries that must not repeat a request", () => {
    let server: Server;
    let url: string;
    let requests: { method: string; url: string; key: string | undefined }[];

    beforeEach(async () => {
      requests = [];
      // Every request reaches the server, and its answer is lost: the connection is cut.
      server = createServer((request, response) => {
        requests.push({
          method: request.method ?? "",
          url: request.url ?? "",
          key: request.headers["idempotency-key"] as string | undefined,
        });
        if (requests.length === 1) response.socket?.destroy();
        else response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
      url = `http://127.0.0.1:${await listen(server)}`;
    });
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("a lost answer to a finalize (not safe to repeat): MdsNetworkError at once, never sent twice", async () => {
      const client = new MdsClient({
        baseUrl: url,
        credentials: { accessToken: "t" },
        retry: { baseDelayMs: 1 },
      });
      const finalize = await client
        .finalizeSession({ session_id: "s1" })
        .catch((error: unknown) => error);
      expect(finalize).to.be.instanceOf(MdsNetworkError);
      expect((finalize as Error).message).to.contain("may or may not have been applied");
      expect(requests.map((r) => r.method)).to.deep.equal(["POST"]);
    });

    it("a creating POST is repeated with the same Idempotency-Key", async () => {
      const client = new MdsClient({
        baseUrl: url,
        credentials: { accessToken: "t" },
        retry: { baseDelayMs: 1 },
      });
      await client.createSession({ body: { project_id: "p" } as never });
      expect(requests).to.have.length(2);
      expect(requests[0].key).to.be.a("string").and.equal(requests[1].key);
    });

    it("makes its Idempotency-Key without crypto.randomUUID (a plain-http page is no secure context)", async () => {
      const crypto = globalThis.crypto as { randomUUID?: unknown };
      Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
      try {
        const client = new MdsClient({
          baseUrl: url,
          credentials: { accessToken: "t" },
          retry: { baseDelayMs: 1 },
        });
        await client.createSession({ body: { project_id: "p" } as never });
      } finally {
        delete (crypto as Record<string, unknown>).randomUUID;
      }
      expect(typeof globalThis.crypto.randomUUID).to.equal("function");
      expect(requests[0].key).to.match(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    });
  });

  describe("stream resume", () => {
    let wss: WebSocketServer;
    let url: string;
    /** Each connection's script: gets the socket and the messages it received so far. */
    let scripts: ((socket: WebSocket, received: Record<string, unknown>[]) => void)[];
    let connections: Record<string, unknown>[][];

    beforeEach(async () => {
      scripts = [];
      connections = [];
      wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
      await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
      url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/api/detection/sessions/${SESSION}/stream`;
      wss.on("connection", (socket) => {
        const received: Record<string, unknown>[] = [];
        connections.push(received);
        const script = scripts.shift();
        socket.on("message", (data) => {
          received.push(JSON.parse(String(data)));
          script?.(socket, received);
        });
      });
    });
    afterEach(() => new Promise<void>((resolve) => wss.close(() => resolve())));

    // What a real replica answers (the contract hooks check these messages against the
    // AsyncAPI document too: a scripted server that drifted would test the SDK against fiction).
    const SESSION = "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d";
    const ready = (lastSeq?: number) =>
      JSON.stringify({
        type: "ready",
        session_id: SESSION,
        status: "streaming",
        mode: "replay",
        input_schema_version: "pose-frame.v1",
        output_schema_version: "detection-event.v1",
        topology: "blazepose-33",
        accepted_frames_total: (lastSeq ?? -1) + 1,
        ...(lastSeq === undefined ? {} : { last_seq: lastSeq }),
        limits: { max_message_bytes: 65536, live_max_fps: 120 },
        frame_encoding: "json",
      });
    const frame = (seq: number) => ({ seq, t: seq / 30, keypoints: [[0.5, 0.5]] });
    const seqs = (messages: Record<string, unknown>[]) =>
      messages.filter((m) => m.type === "frame").map((m) => m.seq as number);

    for (const code of [1001, 1011, 1013]) {
      it(`after ${code}, reconnects and resends only the frames above ready.last_seq`, async () => {
        scripts.push((socket, received) => {
          const last = received.at(-1) as { type: string; seq?: number };
          if (last.type === "hello") socket.send(ready());
          if (last.type === "frame" && last.seq === 2) {
            socket.send(JSON.stringify({ type: "ack", accepted_frames_total: 2, last_seq: 1 }));
            socket.send(
              JSON.stringify({
                type: "event",
                event: {
                  type: "tracking.lost",
                  event_seq: 1,
                  seq: 1,
                  t: 0.03,
                  since_t: 0,
                  missing: [],
                },
              }),
            );
          }
          if (last.type === "frame" && last.seq === 4) socket.close(code, "going");
        });
        scripts.push((socket, received) => {
          const last = received.at(-1) as { type: string };
          // The new replica restored a checkpoint at seq 2: frames 3 and 4 were lost.
          if (last.type === "hello") socket.send(ready(2));
          if (last.type === "finalize") {
            socket.send(
              JSON.stringify({ type: "end", status: "completed", accepted_frames_total: 6 }),
            );
            socket.close(1000);
          }
        });
        const reconnects: number[] = [];
        const client = new StreamClient({
          streamUrl: url,
          runtimeToken: "rt",
          onReconnect: (_, c) => reconnects.push(c),
        });
        await client.connect();
        for (let seq = 0; seq <= 4; seq += 1) await client.send(frame(seq));
        await new Promise((resolve) => setTimeout(resolve, 50));
        await client.send(frame(5));
        const end = await client.finalize();
        expect(end.status).to.equal("completed");
        expect(reconnects[0]).to.equal(code);
        expect(client.reconnects).to.equal(1);
        expect(seqs(connections[0])).to.deep.equal([0, 1, 2, 3, 4]);
        // After the reconnect: the hello says which events it has, then 3, 4 (resent) and 5.
        expect(connections[1][0]).to.include({
          type: "hello",
          runtime_token: "rt",
          last_event_seq: 1,
        });
        expect(seqs(connections[1])).to.deep.equal([3, 4, 5]);
      });
    }

    it("a batch of frames too large for one message (limits.max_message_bytes) leaves in several, in order", async () => {
      const sizes: number[] = [];
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string };
        if (last.type === "hello") socket.send(ready());
        if (last.type === "finalize") {
          socket.send(
            JSON.stringify({ type: "end", status: "completed", accepted_frames_total: 40 }),
          );
          socket.close(1000);
        }
      });
      wss.on("connection", (socket) =>
        socket.on("message", (data: Buffer) => sizes.push(data.byteLength)),
      );
      // 33 keypoints written with every digit: about 2.3 KB a frame, 90 KB for 40.
      const heavy = (seq: number) => ({
        seq,
        t: seq / 30,
        keypoints: Array.from({ length: 33 }, (_, i) => [
          0.1234567890123456 + i / 1000,
          0.6543210987654321,
          -0.0123456789012345,
          0.9876543210987654,
        ]),
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt", batchSize: 40 });
      await client.connect();
      for (let seq = 0; seq < 40; seq += 1) await client.send(heavy(seq));
      expect((await client.finalize()).status).to.equal("completed");
      const framesMessages = connections[0].filter((m) => m.type === "frames");
      expect(framesMessages.length).to.be.greaterThan(1);
      expect(Math.max(...sizes)).to.be.at.most(65536);
      const sent = framesMessages.flatMap((m) => (m.frames as { seq: number }[]).map((f) => f.seq));
      expect(sent).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
    });

    it("frames sent without awaiting leave in call order, across a reconnect too", async () => {
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string; seq?: number };
        if (last.type === "hello") socket.send(ready());
        if (last.type === "frame" && last.seq === 2) socket.close(1011, "lost");
      });
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string };
        if (last.type === "hello") socket.send(ready(1));
        if (last.type === "finalize") {
          socket.send(
            JSON.stringify({ type: "end", status: "completed", accepted_frames_total: 40 }),
          );
          socket.close(1000);
        }
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt" });
      await client.connect();
      // A camera callback: one frame every few milliseconds, none awaited.
      const sent: Promise<void>[] = [];
      for (let seq = 0; seq < 40; seq += 1) {
        sent.push(client.send(frame(seq)));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      await Promise.all(sent);
      expect((await client.finalize()).status).to.equal("completed");
      const after = seqs(connections[1]);
      expect(after[0]).to.equal(2);
      expect(after).to.deep.equal([...after].sort((a, b) => a - b));
      expect(new Set([...seqs(connections[0]), ...after])).to.have.property("size", 40);
    });

    it("a live stream keeps the server's pace (ready.limits.live_max_fps), resends after a reconnect included", async () => {
      const liveReady = (lastSeq?: number) =>
        JSON.stringify({ ...JSON.parse(ready(lastSeq)), mode: "live" });
      const arrivals: { seq: number; at: number }[][] = [[], []];
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string; seq?: number };
        if (last.type === "hello") socket.send(liveReady());
        if (last.type === "frame")
          arrivals[0].push({ seq: last.seq as number, at: performance.now() });
        if (last.type === "frame" && last.seq === 199) socket.close(1011, "lost");
      });
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string; seq?: number };
        if (last.type === "hello") socket.send(liveReady());
        if (last.type === "frame")
          arrivals[1].push({ seq: last.seq as number, at: performance.now() });
        if (last.type === "finalize") {
          socket.send(
            JSON.stringify({ type: "end", status: "completed", accepted_frames_total: 200 }),
          );
          socket.close(1000);
        }
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt" });
      await client.connect();
      // A source far faster than the limit, nothing awaited: 200 frames at once.
      const sent = Array.from({ length: 200 }, (_, seq) => client.send(frame(seq)));
      await Promise.all(sent);
      expect((await client.finalize()).status).to.equal("completed");
      // Nothing was acknowledged: the new attachment got all 200 again, in order.
      expect(arrivals[1].map((a) => a.seq)).to.deep.equal(Array.from({ length: 200 }, (_, i) => i));
      // The server's bucket (120 frames, 120 a second) would have taken every frame: n frames
      // within t ms are at most 120 + 120 t / 1000 (a few more for timer jitter).
      for (const connection of arrivals) {
        for (let i = 0; i < connection.length; i += 1) {
          for (let j = i; j < connection.length; j += 10) {
            const ms = connection[j].at - connection[i].at;
            expect(j - i + 1, `frames ${i} to ${j} within ${ms.toFixed(0)} ms`).to.be.at.most(
              120 + (120 * ms) / 1000 + 3,
            );
          }
        }
      }
    });

    it("no ready in time: the attachment is given up and made again", async () => {
      scripts.push(() => undefined); // takes the hello, never answers
      scripts.push((socket, received) => {
        if ((received.at(-1) as { type: string }).type === "hello") socket.send(ready());
      });
      const reconnects: number[] = [];
      const client = new StreamClient({
        streamUrl: url,
        runtimeToken: "rt",
        handshakeTimeoutMs: 200,
        onReconnect: (_, code) => reconnects.push(code),
      });
      const answered = await client.connect();
      expect(answered.type).to.equal("ready");
      expect(connections).to.have.length(2);
      expect(reconnects).to.deep.equal([1006]);
      client.close();
    });

    it("a connection that goes silent is pinged, then taken as lost and made again", async () => {
      const pings = [0, 0];
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string };
        if (last.type === "hello") socket.send(ready());
        if (last.type === "ping") pings[0] += 1; // and no pong: a network that drops packets
      });
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string };
        if (last.type === "hello") socket.send(ready());
        if (last.type === "ping") {
          pings[1] += 1;
          socket.send(JSON.stringify({ type: "pong" }));
        }
      });
      const reconnects: number[] = [];
      const client = new StreamClient({
        streamUrl: url,
        runtimeToken: "rt",
        pingIntervalMs: 100,
        stallTimeoutMs: 500,
        onReconnect: (_, code) => reconnects.push(code),
      });
      await client.connect();
      for (let waited = 0; connections.length < 2 && waited < 3000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(connections).to.have.length(2);
      expect(pings[0]).to.be.at.least(1);
      expect(reconnects).to.deep.equal([1006]);
      // Answered pings keep the new connection: no third one.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(pings[1]).to.be.at.least(2);
      expect(connections).to.have.length(2);
      client.close();
    });

    it("connect() on an open stream answers its ready, and attaches nothing more", async () => {
      scripts.push((socket, received) => {
        if ((received.at(-1) as { type: string }).type === "hello") socket.send(ready());
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt" });
      const first = await client.connect();
      const again = await client.connect();
      expect(again).to.equal(first);
      expect(connections).to.have.length(1);
      client.close();
    });

    it("after 4429 (rate limited), reconnects only after a pause of a second", async () => {
      let closedAt = 0;
      scripts.push((socket, received) => {
        if ((received.at(-1) as { type: string }).type === "hello") {
          socket.send(ready());
          closedAt = performance.now();
          socket.close(4429, "rate limited");
        }
      });
      scripts.push((socket, received) => {
        if ((received.at(-1) as { type: string }).type === "hello") socket.send(ready());
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt" });
      await client.connect();
      while (connections.length < 2 || connections[1].length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(performance.now() - closedAt).to.be.at.least(950);
      client.close();
    });

    for (const code of [4401, 4409, 4410]) {
      it(`gives up on ${code}`, async () => {
        scripts.push((socket, received) => {
          if ((received.at(-1) as { type: string }).type === "hello") {
            socket.send(
              JSON.stringify({
                type: "error",
                code: "REPLACED",
                message: "another attachment took over",
              }),
            );
            socket.close(code, "final");
          }
        });
        const client = new StreamClient({ streamUrl: url, runtimeToken: "rt" });
        const error = await client.connect().catch((e) => e);
        expect(error).to.be.instanceOf(StreamClientError);
        expect(error.closeCode).to.equal(code);
        expect(error.notice?.code).to.equal("REPLACED");
        expect(connections).to.have.length(1);
      });
    }

    it("waits while too many frames are unacknowledged (backpressure)", async () => {
      let acked = false;
      scripts.push((socket, received) => {
        const last = received.at(-1) as { type: string };
        if (last.type === "hello") socket.send(ready());
        if (seqs(received).length === 3 && !acked) {
          acked = true;
          setTimeout(
            () =>
              socket.send(JSON.stringify({ type: "ack", accepted_frames_total: 3, last_seq: 2 })),
            300,
          );
        }
      });
      const client = new StreamClient({ streamUrl: url, runtimeToken: "rt", maxUnacked: 3 });
      await client.connect();
      for (let seq = 0; seq < 3; seq += 1) await client.send(frame(seq));
      const started = performance.now();
      await client.send(frame(3));
      expect(performance.now() - started).to.be.at.least(250);
      client.close();
    });
  });
});
