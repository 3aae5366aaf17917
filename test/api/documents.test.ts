/**
 * The generated API documents: committed and up to date, valid for real validators (Redocly for
 * OpenAPI 3.1, the AsyncAPI parser for AsyncAPI 3), and true to the gateway: the router serves
 * exactly the documented operations, each with the scope the gateway enforces.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Parser } from "@asyncapi/parser";
import { CLIENT_MESSAGES, CLOSE_CODES, SERVER_MESSAGES } from "@movement-detection/shared/api";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { expect } from "chai";
import { asyncApiDocument } from "../../gateway/api-docs/asyncapi.js";
import { openApiDocument } from "../../gateway/api-docs/openapi.js";
import { OPERATIONS } from "../../gateway/api-docs/operations.js";
import { DOCUMENTS_DIR, documentText } from "../../gateway/api-docs/write-documents.js";
import { publicRoutes } from "../../gateway/routes/index.js";
import type { RouteDeps } from "../../gateway/routes/route-deps.js";

// biome-ignore lint/suspicious/noExplicitAny: walking documents
type Json = Record<string, any>;

/**
 * docs/api.md, "Scopes", written out by hand per operation: the scope it needs (`token`: any
 * valid token of the project; `none`: no token at all) and whether it answers without a token.
 * Not derived from the gateway's policy table, which the OpenAPI document is generated from.
 */
const SPEC_ACCESS: Record<string, { scope: string; anonymous: boolean }> = {
  getHealth: { scope: "none", anonymous: true },
  getHealthz: { scope: "none", anonymous: true },
  mintAccessToken: { scope: "none", anonymous: true },
  getProject: { scope: "token", anonymous: false },
  listProjectMoveSpecs: { scope: "movespecs:read", anonymous: false },
  // Public entries only; a token sent along is still checked (a stale one is a 401).
  listMoveSpecs: { scope: "token", anonymous: true },
  createMoveSpec: { scope: "movespecs:write", anonymous: false },
  getMoveSpec: { scope: "movespecs:read", anonymous: true },
  getDraft: { scope: "movespecs:read", anonymous: false },
  replaceDraft: { scope: "movespecs:write", anonymous: false },
  validateDraft: { scope: "movespecs:write", anonymous: false },
  listVersions: { scope: "movespecs:read", anonymous: true },
  createVersion: { scope: "movespecs:write", anonymous: false },
  getVersion: { scope: "movespecs:read", anonymous: true },
  releaseVersion: { scope: "movespecs:write", anonymous: false },
  getReleasedSource: { scope: "movespecs:read", anonymous: true },
  createSession: { scope: "sessions:write", anonymous: false },
  getSession: { scope: "sessions:read", anonymous: false },
  finalizeSession: { scope: "sessions:write", anonymous: false },
};

/** OpenAPI's way to say it: `{}` allows no token, `bearerAuth` lists the scopes a token needs. */
function securityRequirement(access: { scope: string; anonymous: boolean }): Json[] {
  if (access.scope === "none") return [];
  const bearer = { bearerAuth: access.scope === "token" ? [] : [access.scope] };
  return access.anonymous ? [{}, bearer] : [bearer];
}

describe("API documents (docs/api, /openapi.json, /asyncapi.json)", function () {
  this.timeout(60_000);
  const openapi = openApiDocument() as Json;
  const asyncapi = asyncApiDocument() as Json;

  it("are committed and up to date (regenerate with npm run generate)", () => {
    for (const [name, document] of [
      ["openapi.json", openapi],
      ["asyncapi.json", asyncapi],
    ] as const) {
      const committed = readFileSync(join(DOCUMENTS_DIR, name), "utf8");
      expect(committed, `docs/api/${name} is stale: run npm run generate`).to.equal(
        documentText(document),
      );
    }
  });

  it("OpenAPI 3.1 passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({
      extends: ["recommended"],
      // The two health checks answer 200 or nothing: they have no 4xx to document.
      rules: { "operation-4xx-response": "off" },
    });
    const problems = await lintFromString({
      source: JSON.stringify(openapi),
      absoluteRef: "openapi.json",
      config,
    });
    const report = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`,
    );
    expect(report).to.deep.equal([]);
  });

  it("AsyncAPI 3 parses with no error or warning", async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(asyncapi));
    // Severity 0 is an error, 1 a warning (2 and 3 are hints, e.g. "3.1.0 exists").
    const serious = diagnostics
      .filter((d) => d.severity <= 1)
      .map((d) => `${d.code}: ${d.message} at ${d.path.join("/")}`);
    expect(serious).to.deep.equal([]);
    expect(document, "the parser returned no document").to.not.equal(undefined);
    const messages =
      document
        ?.allMessages()
        .all()
        .map((message) => message.name()) ?? [];
    const expected = [...CLIENT_MESSAGES, ...SERVER_MESSAGES].map(
      (schema) => (schema as unknown as Json).properties.type.const,
    );
    // Plus the one binary message: frames packed as float32 (opt-in in hello).
    expect(messages).to.have.members([...expected, "binaryFrames"]);
    const binary = document
      ?.allMessages()
      .all()
      .find((m) => m.name() === "binaryFrames");
    expect(binary?.contentType()).to.equal("application/octet-stream");
  });

  it("AsyncAPI lists every close code with whether to reconnect", () => {
    const codes = asyncapi.channels.sessionStream["x-close-codes"] as {
      code: number;
      reconnect: boolean;
    }[];
    expect(codes.map((c) => c.code)).to.deep.equal([
      1000, 1001, 1008, 1009, 1011, 1013, 4401, 4404, 4409, 4410, 4429,
    ]);
    expect(codes.filter((c) => c.reconnect).map((c) => c.code)).to.deep.equal([1001, 1011, 1013]);
    expect(CLOSE_CODES).to.have.length(11);
  });

  it("documents exactly the 19 routes the gateway serves", () => {
    const deps = {
      config: {
        environment: "test",
        publicBaseUrl: undefined,
        sessionCreationsInFlight: 1,
        sessionCreationsQueued: 0,
      },
      clients: { auth: {}, catalogue: {}, authoring: {}, detection: [] },
    } as unknown as RouteDeps;
    const served = new Set<string>();
    for (const layer of publicRoutes(deps).stack) {
      const path = String(layer.path);
      if (/^\/(openapi\.json|asyncapi\.json|docs)/.test(path)) continue;
      for (const method of layer.methods) {
        if (method !== "HEAD") served.add(`${method} ${path.replace(/:(\w+)/g, "{param}")}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(openapi.paths as Json)) {
      for (const method of Object.keys(item)) {
        documented.add(`${method.toUpperCase()} ${path.replace(/\{\w+\}/g, "{param}")}`);
      }
    }
    expect([...documented].sort()).to.deep.equal([...served].sort());
    expect(documented.size).to.equal(19);
  });

  it("gives each operation the access docs/api.md's Scopes table names, and the three POSTs an Idempotency-Key", () => {
    const ids = OPERATIONS.map((operation) => operation.operationId);
    expect(Object.keys(SPEC_ACCESS).sort(), "an operation not in the table").to.deep.equal(
      [...ids].sort(),
    );
    for (const operation of OPERATIONS) {
      const item = openapi.paths[operation.path][operation.method];
      expect(item.security, operation.operationId).to.deep.equal(
        securityRequirement(SPEC_ACCESS[operation.operationId]),
      );
      const headers = (item.parameters as Json[]).map((p) => p.$ref ?? p.name);
      expect(headers).to.include("#/components/parameters/X-Request-Id");
      const idempotent = headers.includes("#/components/parameters/Idempotency-Key");
      expect(idempotent, operation.operationId).to.equal(
        ["createMoveSpec", "createVersion", "createSession"].includes(operation.operationId),
      );
    }
    const put = openapi.paths["/api/movespecs/{movespec_id}/draft"].put;
    expect(put.parameters.map((p: Json) => p.$ref)).to.include("#/components/parameters/If-Match");
    expect(put.responses["200"].headers).to.have.property("ETag");
    expect(
      put.responses["412"].content["application/json"].schema.properties.error.properties.details
        .properties.reason.enum,
    ).to.include("ETAG_MISMATCH");
    const create = openapi.paths["/api/detection/sessions"].post;
    expect(create.responses["429"].headers).to.have.property("Retry-After");
  });
});
