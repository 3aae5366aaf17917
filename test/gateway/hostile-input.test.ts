/**
 * Input meant to break the gateway rather than use it: prototype member names where an enum value
 * belongs, and HTTP that Node's parser refuses. Each gets the contract's envelope (400, or 431 for
 * oversized headers), never a 500 or a bare Node error page.
 */
import { connect } from "node:net";
import { expect } from "chai";
import { createTenant, type TestTenant } from "../detection/support/session-api.js";
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
  expect(response.headers["content-type"]).to.equal("application/json");
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
});
