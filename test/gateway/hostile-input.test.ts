/**
 * Input meant to break the gateway rather than use it: prototype member names where an enum value
 * belongs, and HTTP that Node's parser refuses. Each gets the contract's envelope (400, or 431 for
 * oversized headers), never a 500 or a bare Node error page.
 */
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import {
  createTenant,
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
} from "../detection/support/session-api.js";
import type { ApiResponse } from "../movespecs/support/api.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty"];

function expectFieldInvalid(response: ApiResponse, field: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(400);
  expect(response.body.error).to.deep.include({ code: "invalid_argument", retryable: false });
  expect(response.body.error.details).to.include({ reason: "FIELD_INVALID", field });
}

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  readonly body: any;
}

/** Writes bytes on a fresh connection and reads until the server closes it. */
function rawRequest(url: string, bytes: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("the server did not close the connection"));
    }, 5000);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const [head, ...rest] = text.split("\r\n\r\n");
      const [statusLine, ...headerLines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      try {
        resolve({
          status: Number(statusLine.split(" ")[1]),
          headers,
          body: JSON.parse(rest.join("\r\n\r\n")),
        });
      } catch (error) {
        reject(new Error(`not an envelope: ${JSON.stringify(text)} (${error})`));
      }
    });
    socket.write(bytes);
  });
}

function expectRawEnvelope(
  response: RawResponse,
  status: number,
  code: string,
  reason: string,
): void {
  expect(response.status).to.equal(status);
  expect(response.headers["content-type"]).to.match(/^application\/json(;|$)/);
  expect(response.body.error).to.deep.include({ code, retryable: false });
  expect(response.body.error.message).to.be.a("string").and.not.equal("");
  expect(response.body.error.details.reason).to.equal(reason);
  expect(response.body.error.details.request_id).to.equal(response.headers["x-request-id"]);
}

describe("hostile input at the gateway (whole system)", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let tenant: TestTenant;

  before(async () => {
    system = await startTestSystem();
    tenant = await createTenant(system);
  });

  after(async () => {
    await system?.stop();
  });

  describe("prototype member names as enum values answer 400 FIELD_INVALID", () => {
    for (const name of PROTOTYPE_NAMES) {
      it(`GET /api/movespecs?sort=${name}`, async () => {
        expectFieldInvalid(await tenant.call("GET", `/api/movespecs?sort=${name}`), "sort");
      });

      it(`POST /api/movespecs with visibility "${name}"`, async () => {
        const response = await tenant.call("POST", "/api/movespecs", {
          name: "hostile",
          project_id: tenant.projectId,
          visibility: name,
        });
        expectFieldInvalid(response, "visibility");
        expect(response.body.error.details.allowed).to.deep.equal(["private", "public"]);
      });

      it(`POST /api/detection/sessions with mode "${name}"`, async () => {
        const response = await tenant.call("POST", "/api/detection/sessions", {
          project_id: tenant.projectId,
          mode: name,
        });
        expectFieldInvalid(response, "mode");
      });
    }

    it("still accepts the real values", async () => {
      expect((await tenant.call("GET", "/api/movespecs?sort=stars")).status).to.equal(200);
      const created = await tenant.call("POST", "/api/movespecs", {
        name: "fine",
        project_id: tenant.projectId,
        visibility: "public",
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    });
  });

  describe("every invalid field is reported at once, in details.errors", () => {
    const fields = (response: ApiResponse) =>
      (response.body.error.details.errors as { field: string }[]).map((e) => e.field);

    it("POST /api/movespecs: four bad fields, the first one in reason, message and field", async () => {
      const response = await tenant.call("POST", "/api/movespecs", {
        name: 7,
        project_id: "p1",
        description: 5,
        visibility: "delisted",
      });
      expectFieldInvalid(response, "name");
      expect(fields(response)).to.deep.equal(["name", "project_id", "description", "visibility"]);
      expect(response.body.error.message).to.equal(
        "name must be a string (and 3 more: see details.errors)",
      );
      const visibility = response.body.error.details.errors[3];
      expect(visibility).to.deep.equal({
        field: "visibility",
        reason: "FIELD_INVALID",
        message: "visibility must be one of private, public",
        allowed: ["private", "public"],
      });
    });

    it("a missing field is FIELD_REQUIRED beside the invalid ones", async () => {
      const response = await tenant.call("POST", "/api/detection/sessions", {
        mode: "fast",
        contract_major: "1",
        movespec_id: "squat",
      });
      expect(response.status).to.equal(400);
      expect(response.body.error.details).to.include({
        reason: "FIELD_REQUIRED",
        field: "project_id",
      });
      expect(fields(response)).to.have.members([
        "project_id",
        "mode",
        "contract_major",
        "movespec_id",
      ]);
    });

    it("POST /api/auth/access-tokens: array items are named by index", async () => {
      const response = await tenant.call("POST", "/api/auth/access-tokens", {
        api_key: "",
        scopes: ["movespecs:read", 3],
        project_id: "x",
      });
      expect(response.status).to.equal(400);
      expect(fields(response)).to.deep.equal(["api_key", "project_id", "scopes[1]"]);
    });

    it("query parameters: a range, a type and a repetition at once", async () => {
      const response = await tenant.call("GET", "/api/movespecs?limit=0&offset=1e3&sort=a&sort=b");
      expect(response.status).to.equal(400);
      expect(response.body.error.details.errors).to.deep.equal([
        { field: "sort", reason: "FIELD_INVALID", message: "sort may be given once" },
        {
          field: "limit",
          reason: "LIMIT_OUT_OF_RANGE",
          message: "limit must be between 1 and 200",
          min: 1,
          max: 200,
        },
        { field: "offset", reason: "FIELD_INVALID", message: "offset must be an integer" },
      ]);
    });
  });

  describe("bodies that are JSON but hostile, and headers the API reads", () => {
    const DEPTH = 100_000;
    const deep = (inner: string) => `${"[".repeat(DEPTH)}${inner}${"]".repeat(DEPTH)}`;
    const postRaw = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
      fetch(`${system.gatewayUrl}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tenant.token}`,
          "content-type": "application/json",
          ...headers,
        },
        body,
      });
    const envelopeOf = async (response: Response) =>
      (
        (await response.json()) as {
          error: { code: string; message: string; details: Record<string, unknown> };
        }
      ).error;

    it(`nested ${DEPTH} levels deep (200 KB), in a member no route reads: answered as without it`, async () => {
      const routes: [string, string][] = [
        ["/api/auth/access-tokens", `"api_key":"msk_x"`],
        ["/api/movespecs", `"name":"deep","project_id":"${tenant.projectId}"`],
        ["/api/detection/sessions", `"project_id":"${tenant.projectId}"`],
      ];
      for (const [path, members] of routes) {
        const plain = await postRaw(path, `{${members}}`);
        const nested = await postRaw(path, `{${members},"d":${deep("{}")}}`);
        expect(nested.status, path).to.equal(plain.status);
        expect(nested.status, path).to.be.below(500);
        const [a, b] = [await plain.json(), await nested.json()] as {
          error?: { details: { reason: string } };
        }[];
        expect(b.error?.details.reason, path).to.equal(a.error?.details.reason);
      }
    });

    it("a lone surrogate deep inside is found, and named by its path, cut at 200 characters", async () => {
      const response = await postRaw(
        "/api/movespecs",
        `{"name":"x","project_id":"${tenant.projectId}","d":${deep('"\\ud800"')}}`,
      );
      expect(response.status).to.equal(400);
      const text = await response.text();
      // The whole path is 300 KB: the answer names its start, not all of it.
      expect(text.length).to.be.below(2000);
      const error = JSON.parse(text).error;
      expect(error.details).to.include({ reason: "FIELD_INVALID", problem: "lone_surrogate" });
      expect(error.details.field).to.equal(`${`d${"[0]".repeat(DEPTH)}`.slice(0, 200)}...`);
      // A path of 200 characters is named whole.
      const shallow = await postRaw(
        "/api/movespecs",
        `{"name":"x","project_id":"${tenant.projectId}","${"k".repeat(197)}":["\\ud800"]}`,
      );
      expect((await envelopeOf(shallow)).details.field).to.equal(`${"k".repeat(197)}[0]`);
    });

    it("bytes that are not UTF-8: 400 BODY_UNREADABLE, nothing stored", async () => {
      const body = Buffer.concat([
        Buffer.from(`{"name":"bad`),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(`utf8","project_id":"${tenant.projectId}"}`),
      ]);
      const response = await postRaw("/api/movespecs", body);
      expect(response.status).to.equal(400);
      const error = await envelopeOf(response);
      expect(error.details.reason).to.equal("BODY_UNREADABLE");
      expect(error.message).to.equal("request body is not valid UTF-8");
    });

    it("a charset other than UTF-8: 415; utf-8 however written: read", async () => {
      const body = `{"name":"charset","project_id":"${tenant.projectId}"}`;
      for (const charset of ["latin1", "utf-16", '"iso-8859-1"']) {
        const response = await postRaw("/api/movespecs", body, {
          "content-type": `application/json; charset=${charset}`,
        });
        expect(response.status, charset).to.equal(415);
        expect((await envelopeOf(response)).details.reason).to.equal("CONTENT_TYPE_NOT_JSON");
      }
      for (const charset of ["utf-8", "UTF-8", '"utf-8"', "utf8"]) {
        const response = await postRaw("/api/movespecs", body, {
          "content-type": `application/json; charset=${charset}`,
        });
        expect(response.status, charset).to.equal(201);
      }
    });

    it("a content-encoded body (gzip): 415 with Accept-Encoding: identity; identity: read", async () => {
      const body = `{"name":"encoded","project_id":"${tenant.projectId}"}`;
      for (const encoding of ["gzip", "br", "GZIP"]) {
        const response = await postRaw("/api/movespecs", gzipSync(body), {
          "content-type": "application/json",
          "content-encoding": encoding,
        });
        expect(response.status, encoding).to.equal(415);
        expect(response.headers.get("accept-encoding"), encoding).to.equal("identity");
        const error = await envelopeOf(response);
        expect(error.details.reason).to.equal("CONTENT_TYPE_NOT_JSON");
        expect(error.details.received_encoding).to.equal(encoding.toLowerCase());
      }
      const plain = await postRaw("/api/movespecs", body, {
        "content-type": "application/json",
        "content-encoding": "identity",
      });
      expect(plain.status).to.equal(201);
    });

    it("a body of exactly BODY_LIMIT_BYTES (1 MiB) is read; one byte more is 413 BODY_TOO_LARGE", async () => {
      const MIB = 1024 * 1024;
      const bodyOf = (bytes: number) => {
        const head = `{"name":"bodylimit","project_id":"${tenant.projectId}","pad":"`;
        return `${head}${"p".repeat(bytes - head.length - 2)}"}`;
      };
      expect(Buffer.byteLength(bodyOf(MIB))).to.equal(MIB);
      expect((await postRaw("/api/movespecs", bodyOf(MIB))).status).to.equal(201);
      const over = await postRaw("/api/movespecs", bodyOf(MIB + 1));
      expect(over.status).to.equal(413);
      const error = await envelopeOf(over);
      expect(error.code).to.equal("payload_too_large");
      expect(error.details).to.include({ reason: "BODY_TOO_LARGE", limit_bytes: MIB });
    });

    it("X-Request-Id: 128 characters are kept, 129 are replaced by a fresh id", async () => {
      const sane = "aZ0._:-".repeat(19).slice(0, 128);
      const kept = await fetch(`${system.gatewayUrl}/api/health`, {
        headers: { "x-request-id": sane },
      });
      expect(kept.headers.get("x-request-id")).to.equal(sane);
      // The error envelope quotes the same id as the header, whichever it is.
      const long = `${sane}a`;
      const replaced = await fetch(`${system.gatewayUrl}/api/nowhere`, {
        headers: { "x-request-id": long },
      });
      const id = replaced.headers.get("x-request-id");
      expect(id).to.match(/^[0-9a-f-]{36}$/);
      expect((await envelopeOf(replaced)).details.request_id).to.equal(id);
    });

    it("the token route: up to 50 scopes of 64 characters and 1,024 characters of secret, then 400", async () => {
      const exchange = (body: Record<string, unknown>) =>
        tenant.call("POST", "/api/auth/access-tokens", body);
      const fifty = await exchange({
        api_key: tenant.apiKey,
        scopes: Array(50).fill("movespecs:read"),
      });
      expect(fifty.status, JSON.stringify(fifty.body)).to.equal(200);
      const fiftyOne = await exchange({
        api_key: tenant.apiKey,
        scopes: Array(51).fill("movespecs:read"),
      });
      expectFieldInvalid(fiftyOne, "scopes");
      // A scope name of 64 characters reaches auth, which names it unknown; 65 are refused by
      // the gateway. An unbounded name came back in the error and broke the answer (a 500).
      const longName = await exchange({ api_key: tenant.apiKey, scopes: ["s".repeat(64)] });
      expectFieldInvalid(longName, "scopes");
      expect(longName.body.error.details.unknown_scopes).to.deep.equal(["s".repeat(64)]);
      for (const length of [65, 100_000]) {
        const tooLong = await exchange({ api_key: tenant.apiKey, scopes: ["s".repeat(length)] });
        expectFieldInvalid(tooLong, "scopes[0]");
      }
      // A secret at the length limit is checked (and unknown); one character more is not read.
      const atLimit = await exchange({ api_key: `msk_${"a".repeat(1020)}` });
      expect(atLimit.status, JSON.stringify(atLimit.body)).to.equal(401);
      expect(atLimit.body.error.details.reason).to.equal("CREDENTIAL_INVALID");
      for (const field of ["api_key", "api_key_secret", "service_account_secret"]) {
        const pairs: Record<string, Record<string, unknown>> = {
          api_key: {},
          api_key_secret: { api_key_id: "01a20000-0000-7000-8000-000000000000" },
          service_account_secret: { service_account_id: "01a20000-0000-7000-8000-000000000000" },
        };
        const over = await exchange({ ...pairs[field], [field]: `m${"a".repeat(1024)}` });
        expectFieldInvalid(over, field);
      }
    });

    it("an empty Idempotency-Key: 400 FIELD_INVALID, nothing created", async () => {
      const before = await tenant.call("GET", `/api/movespecs?q=emptykey&limit=200`);
      for (const [path, body] of [
        ["/api/movespecs", { name: "emptykey", project_id: tenant.projectId }],
        ["/api/detection/sessions", { project_id: tenant.projectId }],
      ] as const) {
        const response = await tenant.call("POST", path, body, { "Idempotency-Key": "" });
        expect(response.status, path).to.equal(400);
        expect(response.body.error.details, path).to.include({
          reason: "FIELD_INVALID",
          field: "Idempotency-Key",
        });
      }
      const after = await tenant.call("GET", `/api/movespecs?q=emptykey&limit=200`);
      expect(after.body.total).to.equal(before.body.total);
    });

    it("a request refused before the router (no token, bad JSON) is logged under its route", async () => {
      const id = "01a20000-0000-7000-8000-000000000000";
      const refused = [
        await fetch(`${system.gatewayUrl}/api/detection/sessions/${id}`),
        await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{broken",
        }),
      ];
      expect(refused.map((response) => response.status)).to.deep.equal([401, 400]);
      const routes = await Promise.all(
        refused.map(async (response) => {
          const requestId = response.headers.get("x-request-id");
          let line: Record<string, unknown> | undefined;
          for (let waited = 0; !line && waited < 2000; waited += 50) {
            line = system.logs
              .map((entry) => entry.line)
              .find(
                (entry): entry is Record<string, unknown> =>
                  typeof entry === "object" &&
                  entry.msg === "request" &&
                  entry.request_id === requestId,
              );
            if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return line?.route;
        }),
      );
      expect(routes).to.deep.equal([
        "/api/detection/sessions/:sessionId",
        "/api/auth/access-tokens",
      ]);
    });

    it("paths match as written: /API/HEALTH and /Api/MoveSpecs are 404 ROUTE_NOT_FOUND", async () => {
      for (const path of ["/API/HEALTH", "/Api/MoveSpecs", `/api/MOVESPECS`]) {
        const response = await fetch(`${system.gatewayUrl}${path}`);
        expect(response.status, path).to.equal(404);
        expect((await envelopeOf(response)).details.reason, path).to.equal("ROUTE_NOT_FOUND");
      }
      expect((await fetch(`${system.gatewayUrl}/api/health`)).status).to.equal(200);
    });

    it("a trailing slash is part of the path: /api/movespecs/ and /api/movespecs/{id}/ alike are 404", async () => {
      const id = "01a20000-0000-7000-8000-000000000000";
      for (const path of ["/api/health/", "/api/movespecs/", `/api/movespecs/${id}/`]) {
        const response = await fetch(`${system.gatewayUrl}${path}`);
        expect(response.status, path).to.equal(404);
        expect((await envelopeOf(response)).details.reason, path).to.equal("ROUTE_NOT_FOUND");
      }
      expect((await fetch(`${system.gatewayUrl}/api/movespecs`)).status).to.equal(200);
    });
  });

  describe("websocket handshakes the replica would refuse: the envelope, from the gateway", () => {
    const STREAM = "/api/detection/sessions/01a20000-0000-7000-8000-000000000000/stream";
    const upgrade = (headers: string) =>
      rawRequest(
        system.gatewayUrl,
        `GET ${STREAM} HTTP/1.1\r\nHost: gateway\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${headers}\r\n`,
      );
    const KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    const VERSION = "Sec-WebSocket-Version: 13\r\n";

    for (const [what, headers, message] of [
      ["a short key", `Sec-WebSocket-Key: short\r\n${VERSION}`, /Sec-WebSocket-Key/],
      ["no key", VERSION, /Sec-WebSocket-Key/],
      ["version 99", `${KEY}Sec-WebSocket-Version: 99\r\n`, /Sec-WebSocket-Version must be 13/],
      ["no version", KEY, /Sec-WebSocket-Version must be 13/],
      [
        "an empty protocol in the list",
        `${KEY}${VERSION}Sec-WebSocket-Protocol: a,,b\r\n`,
        /Sec-WebSocket-Protocol/,
      ],
      [
        "a protocol twice",
        `${KEY}${VERSION}Sec-WebSocket-Protocol: a, a\r\n`,
        /Sec-WebSocket-Protocol/,
      ],
    ] as const) {
      it(`${what}: 400 UPGRADE_NOT_WEBSOCKET with X-Request-Id`, async () => {
        const response = await upgrade(headers);
        expectRawEnvelope(response, 400, "invalid_argument", "UPGRADE_NOT_WEBSOCKET");
        expect(response.body.error.message).to.match(message);
        if (what.includes("version")) {
          expect(response.headers["sec-websocket-version"]).to.equal("13");
        }
      });
    }
  });

  describe("HTTP that Node's parser refuses is answered with the envelope", () => {
    const HOST = "Host: gateway\r\n";

    it("a CR inside a header value: 400 MALFORMED_REQUEST", async () => {
      const response = await rawRequest(
        system.gatewayUrl,
        `GET /api/health HTTP/1.1\r\n${HOST}X-Evil: a\rb\r\n\r\n`,
      );
      expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
    });

    it("a LF that splits a header name: 400 MALFORMED_REQUEST", async () => {
      const response = await rawRequest(
        system.gatewayUrl,
        `GET /api/health HTTP/1.1\r\n${HOST}X-Ev\nil: a\r\n\r\n`,
      );
      expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
    });

    it("a 20 KB header: 431 HEADERS_TOO_LARGE", async () => {
      const response = await rawRequest(
        system.gatewayUrl,
        `GET /api/health HTTP/1.1\r\n${HOST}X-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`,
      );
      expectRawEnvelope(response, 431, "payload_too_large", "HEADERS_TOO_LARGE");
    });

    // Node's limit counts the request target and the header names and values (not the method,
    // the version or the separators) and refuses them once they reach 16 KiB: a long query string
    // spends the same allowance as a long header.
    it("the target and headers are read up to 16,383 bytes; at 16,384: 431 HEADERS_TOO_LARGE", async () => {
      const MAX = 16 * 1024;
      const request = (where: "header" | "query", counted: number) => {
        const fixed = "Host".length + "gateway".length + "Connection".length + "close".length;
        const head = "GET /api/health";
        const tail = " HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n";
        if (where === "query") {
          const target = "/api/health?pad=";
          const pad = "a".repeat(counted - fixed - target.length);
          return `GET ${target}${pad}${tail}\r\n`;
        }
        const pad = "a".repeat(counted - fixed - "/api/health".length - "X-Pad".length);
        return `${head}${tail}X-Pad: ${pad}\r\n\r\n`;
      };
      for (const where of ["header", "query"] as const) {
        const at = await rawRequest(system.gatewayUrl, request(where, MAX - 1));
        expect(at.status, where).to.equal(200);
        expect(at.body.status, where).to.equal("ok");
        const past = await rawRequest(system.gatewayUrl, request(where, MAX));
        expectRawEnvelope(past, 431, "payload_too_large", "HEADERS_TOO_LARGE");
      }
    });

    it("both Content-Length and Transfer-Encoding: 400 MALFORMED_REQUEST", async () => {
      const response = await rawRequest(
        system.gatewayUrl,
        `POST /api/movespecs HTTP/1.1\r\n${HOST}Content-Type: application/json\r\n` +
          "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      );
      expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
    });

    it("a garbage request line: 400 MALFORMED_REQUEST", async () => {
      const response = await rawRequest(system.gatewayUrl, "\x16\x03\x01 hello there\r\n\r\n");
      expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
    });

    it("a client that hangs up mid-garbage leaves the gateway serving", async () => {
      const { hostname, port } = new URL(system.gatewayUrl);
      for (let i = 0; i < 20; i += 1) {
        const socket = connect(Number(port), hostname);
        socket.on("error", () => undefined);
        socket.write("GARBAGE\r\nX: \x00\r\n");
        socket.destroy();
      }
      const health = await fetch(`${system.gatewayUrl}/api/health`);
      expect(health.status).to.equal(200);
    });
  });
  describe("requests no URL can be made of: 400 MALFORMED_REQUEST, and the gateway keeps serving", () => {
    const request = (target: string, host: string | undefined, extra = "") =>
      `GET ${target} HTTP/1.1\r\n${host === undefined ? "" : `Host: ${host}\r\n`}Connection: close\r\n${extra}\r\n`;

    it("an absolute-form target that does not parse, ten times (it used to end the gateway)", async () => {
      for (let i = 0; i < 10; i += 1) {
        const response = await rawRequest(
          system.gatewayUrl,
          request("http://[::1/api/health", "localhost"),
        );
        expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
      }
      expect((await fetch(`${system.gatewayUrl}/api/health`)).status).to.equal(200);
      // A line is written once its response went out: on a busy machine, after the client read it.
      const logged = () =>
        system
          .logsOf("gateway")
          .filter((line) => line.msg === "request" && line.path === "http://[::1/api/health");
      for (let waited = 0; logged().length < 10 && waited < 5000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(logged()).to.have.length(10);
      expect(logged()[0]).to.include({ status: 400 });
    });

    for (const host of ["a b", "localhost:99999", "%00", "x:y"]) {
      it(`Host: ${JSON.stringify(host)}`, async () => {
        const response = await rawRequest(system.gatewayUrl, request("/api/health", host));
        expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
      });
    }

    it("hosts and ports that are hosts and ports are served", async () => {
      for (const host of ["localhost", "127.0.0.1:8080", "[::1]:80", "api.example.com"]) {
        const response = await rawRequest(system.gatewayUrl, request("/api/health", host));
        expect(response.status, host).to.equal(200);
      }
    });

    it("a session's creation with a bad Host is refused before anything is created", async () => {
      const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"), {
        name: "host check",
      });
      const body = JSON.stringify({ project_id: tenant.projectId, movespec_id: movespecId });
      const post = (host: string | undefined, version = "1.1") =>
        rawRequest(
          system.gatewayUrl,
          `POST /api/detection/sessions HTTP/${version}\r\n${host === undefined ? "" : `Host: ${host}\r\n`}Connection: close\r\nAuthorization: Bearer ${tenant.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      const refused = [await post("a b"), await post(undefined, "1.0")];
      for (const response of refused) {
        expectRawEnvelope(response, 400, "invalid_argument", "MALFORMED_REQUEST");
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ids = new Set(refused.map((response) => response.headers["x-request-id"]));
      const created = system
        .logsOf("detection")
        .filter((line) => line.msg === "session created" && ids.has(line.request_id as string));
      expect(created).to.deep.equal([]);
      // The same request with a Host: created, its stream URL made of that Host.
      const ok = await post("127.0.0.1:9");
      expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
      expect(ok.body.stream_url).to.match(/^ws:\/\/127\.0\.0\.1:9\/api\/detection\/sessions\//);
    });
  });

  describe("member names and ids that are not what they look like", () => {
    it("a __proto__ member is an unknown member: it cannot supply the others", async () => {
      const response = await tenant.call(
        "POST",
        "/api/movespecs",
        `{"__proto__":{"name":"from proto","project_id":"${tenant.projectId}","visibility":"public"}}`,
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.error.details).to.include({ reason: "FIELD_REQUIRED", field: "name" });
    });

    it("a session id that is not a UUID answers exactly like an unknown one", async () => {
      const unknown = "01a20151-0000-7000-8000-0000000000ff";
      for (const [method, suffix] of [
        ["GET", ""],
        ["POST", "/finalize"],
      ]) {
        const byUuid = await tenant.call(method, `/api/detection/sessions/${unknown}${suffix}`);
        const byName = await tenant.call(method, `/api/detection/sessions/xyz${suffix}`);
        expect(byName.status).to.equal(404);
        expect(byUuid.status).to.equal(404);
        const { request_id: _a, ...uuidDetails } = byUuid.body.error.details;
        const { request_id: _b, ...nameDetails } = byName.body.error.details;
        expect(nameDetails).to.deep.equal({ ...uuidDetails, session_id: "xyz" });
        expect(byName.body.error.message).to.equal(byUuid.body.error.message);
      }
    });
  });

  describe("a key in disguise reaches no log line, in any process (issue 40)", () => {
    /** Every percent escape decoded, as often as a reader might. */
    const decoded = (text: string) => {
      let result = text;
      for (let round = 0; round < 6; round += 1) {
        result = result.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
          String.fromCharCode(Number.parseInt(hex, 16)),
        );
      }
      return result;
    };
    const encodeAll = (text: string) =>
      [...text].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");

    it("in the path, the query, X-Request-Id (any case, bare), a token request and a target no URL can be made of", async () => {
      const key = tenant.apiKey;
      const body = key.slice(4);
      const get = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${system.gatewayUrl}${path}`, { headers });
      const responses = [
        await get(`/api/x%6Dsk_${body}`),
        await get(`/api/${encodeAll(key)}`),
        await get(`/api/movespecs/x%256Dsk_${body}`),
        await get(`/api/movespecs?q=%4DSK_${body}`),
        await get("/api/health", { "x-request-id": `MSK_${body}` }),
        await get("/api/health", { "x-request-id": body }),
        await get("/api/nowhere", { "x-request-id": key }),
        await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": body },
          body: JSON.stringify({ api_key: key }),
        }),
        await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ api_key: `MSK_${body}` }),
        }),
      ];
      const statuses = responses.map((response) => response.status);
      expect(statuses.slice(0, 3)).to.deep.equal([404, 404, 404]);
      expect(statuses.slice(4, 8)).to.deep.equal([200, 200, 404, 200]);
      expect(statuses[8]).to.be.within(400, 401);
      // A client's id that is or holds a key is not echoed: a fresh one answers instead.
      for (const response of responses.slice(4, 8)) {
        expect(response.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
      }
      const malformed = await rawRequest(
        system.gatewayUrl,
        `GET http://[::1/x%6Dsk_${body} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${body}\r\nConnection: close\r\n\r\n`,
      );
      expectRawEnvelope(malformed, 400, "invalid_argument", "MALFORMED_REQUEST");

      // Each request's access line is written (the test reads what it should), masked.
      const ids = [
        ...responses.map((response) => response.headers.get("x-request-id")),
        malformed.headers["x-request-id"],
      ];
      const accessLines = () =>
        system
          .logsOf("gateway")
          .filter((line) => line.msg === "request" && ids.includes(line.request_id as string));
      // And auth's line of each token request: every process had its say before the grep.
      const tokenIds = ids.slice(7, 9);
      const authHeard = () =>
        tokenIds.every((id) => system.logsOf("auth").some((line) => line.request_id === id));
      for (
        let waited = 0;
        (accessLines().length < ids.length || !authHeard()) && waited < 5000;
        waited += 50
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(authHeard(), "auth logged the token requests").to.equal(true);
      const paths = accessLines().map((line) => line.path);
      expect(paths).to.have.length(ids.length);
      expect(paths).to.include(`/api/xmsk_[redacted]`);
      expect(paths).to.include(`http://[::1/xmsk_[redacted]`);

      const sought = body.toLowerCase();
      let read = 0;
      for (const { name, line } of system.logs) {
        const text = typeof line === "string" ? line : JSON.stringify(line);
        for (const form of [text, decoded(text)]) {
          expect(form.toLowerCase(), `${name}: ${text.slice(0, 300)}`).to.not.include(sought);
        }
        read += 1;
      }
      const processes = new Set(system.logs.map((entry) => entry.name));
      expect([...processes]).to.include.members(["gateway", "auth", "embedded-mongo"]);
      expect(read).to.be.greaterThan(20);
      // Node's warning about that target (once per process: this one's or an earlier test's) is
      // a log line too, not raw stderr.
      expect(
        system
          .logsOf("gateway")
          .some(
            (line) =>
              line.msg === "process warning" &&
              (line.warning as { code?: string }).code === "DEP0170",
          ),
      ).to.equal(true);
    });
  });
});
