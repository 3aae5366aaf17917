import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import Router from "@koa/router";
import { Code, serviceError } from "@movement-detection/shared/errors";
import { expect } from "chai";
import Koa from "koa";
import { pino } from "pino";
import { errorEnvelope } from "../../gateway/middleware/error-envelope.js";
import { jsonBody } from "../../gateway/middleware/json-body.js";
import { requestId } from "../../gateway/middleware/request-id.js";
import { routeFallback } from "../../gateway/middleware/route-fallback.js";
import type { GatewayState } from "../../gateway/state.js";

const LIMIT = 2048;
/** BODY_TIMEOUT_MS for these tests: short, so that a stalled body shows within the test. */
const BODY_TIMEOUT_MS = 600;

describe("gateway middleware", () => {
  let server: Server;
  let base: string;
  const logged: { msg: string; err?: { message: string } }[] = [];

  before(async () => {
    const router = new Router<GatewayState>();
    router.post("/echo", (ctx) => {
      ctx.body = { received: ctx.state.body ?? null };
    });
    router.get("/boom", () => {
      throw new Error("secret internal detail at /srv/app.js:12");
    });
    router.get("/service-not-found", () => {
      throw serviceError(Code.NotFound, "MOVESPEC_NOT_FOUND", "movespec not found", { id: "x" });
    });
    router.get("/service-internal", () => {
      throw serviceError(Code.Internal, "INTERNAL", "db password is hunter2");
    });
    const app = new Koa<GatewayState>();
    app.silent = true;
    app
      .use(requestId())
      .use(
        errorEnvelope(
          pino({ level: "info" }, { write: (line: string) => logged.push(JSON.parse(line)) }),
        ),
      )
      .use(routeFallback(router))
      .use(jsonBody(LIMIT, BODY_TIMEOUT_MS))
      .use(router.routes());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (body: string, contentType = "application/json") =>
    fetch(`${base}/echo`, { method: "POST", headers: { "content-type": contentType }, body });

  async function expectEnvelope(response: Response, status: number, code: string, reason: string) {
    expect(response.status).to.equal(status);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error.code).to.equal(code);
    expect(body.error.message).to.be.a("string").and.not.equal("");
    expect(body.error.retryable).to.be.a("boolean");
    const details = body.error.details as Record<string, unknown>;
    expect(details.reason).to.equal(reason);
    expect(details.request_id).to.equal(response.headers.get("x-request-id"));
    return body.error;
  }

  describe("jsonBody", () => {
    it("passes a JSON object to the route", async () => {
      const response = await post(JSON.stringify({ a: 1 }));
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ received: { a: 1 } });
    });

    it("accepts a charset parameter and +json media types", async () => {
      for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
        const response = await post("{}", type);
        expect(response.status, type).to.equal(200);
      }
    });

    it("leaves an empty body undefined", async () => {
      const response = await fetch(`${base}/echo`, { method: "POST" });
      expect(await response.json()).to.deep.equal({ received: null });
    });

    it("answers 400 MALFORMED_JSON for broken JSON", async () => {
      await expectEnvelope(await post("{bad"), 400, "invalid_argument", "MALFORMED_JSON");
    });

    it("answers 400 BODY_NOT_OBJECT for JSON that is not an object", async () => {
      for (const body of ["[1,2]", "42", '"text"', "null"]) {
        await expectEnvelope(await post(body), 400, "invalid_argument", "BODY_NOT_OBJECT");
      }
    });

    it("answers 415 CONTENT_TYPE_NOT_JSON for other media types", async () => {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
        await expectEnvelope(
          await post("{}", type),
          415,
          "unsupported_media_type",
          "CONTENT_TYPE_NOT_JSON",
        );
      }
    });

    it("accepts a body of exactly the limit and refuses one byte more with 413", async () => {
      const padding = (size: number) => JSON.stringify({ p: "x".repeat(size - 8) });
      expect(padding(LIMIT)).to.have.length(LIMIT);
      expect((await post(padding(LIMIT))).status).to.equal(200);
      const error = await expectEnvelope(
        await post(padding(LIMIT + 1)),
        413,
        "payload_too_large",
        "BODY_TOO_LARGE",
      );
      expect((error.details as Record<string, unknown>).limit_bytes).to.equal(LIMIT);
    });
  });

  describe("routeFallback", () => {
    /** Sends `head` and the body's parts `gapMs` apart; the whole answer, once the server closes. */
    function slowPost(parts: readonly string[], gapMs: number, length: number) {
      const { port } = new URL(base);
      return new Promise<{ text: string; ms: number }>((resolve, reject) => {
        const started = performance.now();
        const socket = connect(Number(port), "127.0.0.1");
        const chunks: Buffer[] = [];
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", reject);
        socket.on("close", () =>
          resolve({ text: Buffer.concat(chunks).toString(), ms: performance.now() - started }),
        );
        socket.write(
          `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
        );
        parts.forEach((part, index) => {
          setTimeout(() => socket.write(part), index * gapMs).unref();
        });
        // Ask for the close once the body is whole; a stalled body leaves it to the server.
        if (parts.join("").length === length) {
          setTimeout(() => socket.end(), parts.length * gapMs + 300).unref();
        }
      });
    }

    it("reads a body that comes slowly but whole within BODY_TIMEOUT_MS", async () => {
      const { text } = await slowPost(['{"a":', "1}"], BODY_TIMEOUT_MS / 3, 7);
      expect(text).to.match(/^HTTP\/1\.1 200 /);
      expect(text).to.contain('{"received":{"a":1}}');
    });

    it("a body not whole after BODY_TIMEOUT_MS: 400 BODY_UNREADABLE, and the connection closed", async () => {
      // Content-Length promises 100 bytes; 7 come, then nothing.
      const { text, ms } = await slowPost(['{"a":1}'], 0, 100);
      expect(ms).to.be.within(BODY_TIMEOUT_MS, BODY_TIMEOUT_MS + 3000);
      const [head, body] = text.split("\r\n\r\n");
      expect(head).to.match(/^HTTP\/1\.1 400 /);
      expect(head.toLowerCase()).to.contain("connection: close");
      const error = JSON.parse(body).error;
      expect(error.details).to.include({ reason: "BODY_UNREADABLE", timeout_ms: BODY_TIMEOUT_MS });
    });

    it("answers 404 ROUTE_NOT_FOUND for unknown paths, whatever the method", async () => {
      for (const method of ["GET", "POST", "DELETE"]) {
        const response = await fetch(`${base}/nowhere`, { method });
        await expectEnvelope(response, 404, "not_found", "ROUTE_NOT_FOUND");
      }
    });

    it("answers 405 with Allow before reading the body", async () => {
      const response = await fetch(`${base}/echo`, {
        method: "PUT",
        headers: { "content-type": "text/plain" },
        body: "not even json",
      });
      await expectEnvelope(response, 405, "method_not_allowed", "METHOD_NOT_ALLOWED");
      expect(response.headers.get("allow")).to.equal("POST, OPTIONS");
    });

    it("lists the allowed methods on OPTIONS", async () => {
      const response = await fetch(`${base}/boom`, { method: "OPTIONS" });
      expect(response.status).to.equal(204);
      expect(response.headers.get("allow")).to.equal("HEAD, GET, OPTIONS");
    });
  });

  describe("errorEnvelope", () => {
    it("hides unexpected errors behind a bare 500 internal", async () => {
      const response = await fetch(`${base}/boom`);
      const error = await expectEnvelope(response, 500, "internal", "INTERNAL");
      expect(JSON.stringify(error)).not.to.contain("secret");
      expect(JSON.stringify(error)).not.to.contain("/srv");
      const line = logged.find((entry) => entry.err?.message.includes("secret internal detail"));
      expect(line, "the cause of the 500 is logged").to.include({ msg: "internal error" });
    });

    it("turns a service's ConnectError into the envelope (the routes do not)", async () => {
      const response = await fetch(`${base}/service-not-found`);
      const error = await expectEnvelope(response, 404, "not_found", "MOVESPEC_NOT_FOUND");
      expect(error).to.include({ message: "movespec not found", retryable: false });
      expect(error.details).to.include({ id: "x" });
    });

    it("hides a service's internal error and logs it", async () => {
      const response = await fetch(`${base}/service-internal`);
      const error = await expectEnvelope(response, 500, "internal", "INTERNAL");
      expect(JSON.stringify(error)).not.to.contain("hunter2");
      expect(logged.some((entry) => entry.err?.message.includes("hunter2"))).to.equal(true);
    });
  });
});
