/**
 * The OpenAPI 3.1 document of the public HTTP API, generated from the operations table and the
 * schemas the gateway validates with. Served at /openapi.json and written to
 * docs/api/openapi.json (`npm run generate`; a test fails when that file is stale).
 */
import { ErrorEnvelope, PathId, SCOPE_DESCRIPTIONS } from "@movement-detection/shared/api";
import type { ErrorReason } from "@movement-detection/shared/errors";
import { policyFor } from "../auth/scopes.js";
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  CODE_FROM_REASON,
  REASON_FROM_CODE,
} from "../errors/error-codes.js";
import { SchemaComponents } from "./components.js";
import { exampleOf } from "./examples.js";
import { OPERATIONS, type Operation } from "./operations.js";
import { streamOverview } from "./stream-overview.js";

type Json = Record<string, unknown>;

export const API_VERSION = "0.1.0";

const BODY_REASONS: readonly ErrorReason[] = [
  "MALFORMED_JSON",
  "BODY_NOT_OBJECT",
  "BODY_UNREADABLE",
  "BODY_TOO_LARGE",
  "CONTENT_TYPE_NOT_JSON",
];
const FIELD_REASONS: readonly ErrorReason[] = [
  "FIELD_REQUIRED",
  "FIELD_INVALID",
  "LIMIT_OUT_OF_RANGE",
];

/** Every reason an operation can answer: its own, plus what its access and body rules add. */
export function reasonsOf(operation: Operation): ErrorReason[] {
  const reasons = new Set<ErrorReason>(operation.reasons);
  const add = (list: readonly ErrorReason[]) => {
    for (const reason of list) reasons.add(reason);
  };
  if (operation.access === "token" || operation.access === "scope") {
    add(["TOKEN_MISSING", "TOKEN_INVALID", "TOKEN_EXPIRED", "DEPENDENCY_UNAVAILABLE"]);
  }
  if (operation.access === "scope" || operation.access === "scope-or-anonymous")
    add(["SCOPE_MISSING"]);
  if (operation.access === "scope-or-anonymous" || operation.operationId === "listMoveSpecs") {
    add(["TOKEN_INVALID", "TOKEN_EXPIRED", "DEPENDENCY_UNAVAILABLE"]);
  }
  if (operation.method !== "get") add(BODY_REASONS);
  if (operation.body || operation.query) add(FIELD_REASONS);
  if (operation.idempotent) add(["FIELD_INVALID"]);
  // A service that refuses without a reason of its own gets the code's generic one.
  for (const reason of [...reasons]) reasons.add(REASON_FROM_CODE[CODE_FROM_REASON[reason]]);
  return [...reasons];
}

/** The reasons by HTTP status (a reason fixes its code, and the code its status). */
export function reasonsByStatus(
  operation: Operation,
): Map<number, { codes: Set<ApiErrorCode>; reasons: ErrorReason[] }> {
  const byStatus = new Map<number, { codes: Set<ApiErrorCode>; reasons: ErrorReason[] }>();
  for (const reason of reasonsOf(operation)) {
    const code = CODE_FROM_REASON[reason];
    const status = API_ERROR_CODES[code].status;
    const entry = byStatus.get(status) ?? { codes: new Set(), reasons: [] };
    entry.codes.add(code);
    entry.reasons.push(reason);
    byStatus.set(status, entry);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

const STATUS_TEXT: Record<number, string> = {
  400: "The request is invalid",
  401: "No valid credential or token",
  403: "Not allowed",
  404: "Not found (or not visible to the caller)",
  409: "Conflict with the resource's state",
  412: "If-Match no longer matches",
  413: "Too large",
  415: "The body is not JSON",
  429: "Rate limited or over quota: retry after Retry-After seconds",
  500: "A bug (nothing is shown; logged under the request id)",
  503: "A dependency is unavailable: retry (Retry-After when known)",
  504: "A dependency did not answer in time: retry",
};

const header = (description: string, schema: Json = { type: "string" }, required = false) => ({
  description,
  required,
  schema,
});

/** The scope an operation needs (from the gateway's route policies, the one enforcement table). */
function securityOf(operation: Operation): Json[] {
  const samplePath = operation.path.replace(/\{[^}]+\}/g, "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d");
  const policy = policyFor(operation.method.toUpperCase(), samplePath);
  if (policy.kind === "public")
    return operation.operationId === "listMoveSpecs" ? [{}, { bearerAuth: [] }] : [];
  if (policy.kind === "token") return [{ bearerAuth: [] }];
  return policy.anonymous ? [{}, { bearerAuth: [policy.scope] }] : [{ bearerAuth: [policy.scope] }];
}

function scopeNote(operation: Operation): string {
  const security = securityOf(operation);
  const scopes = security.flatMap((s) => (s.bearerAuth as string[] | undefined) ?? []);
  const anonymous = security.length === 0 || security.some((s) => Object.keys(s).length === 0);
  if (operation.access === "credential")
    return "**Access:** anonymous (the credential is in the body).";
  if (security.length === 0) return "**Access:** anonymous.";
  if (scopes.length === 0)
    return anonymous
      ? "**Access:** anonymous."
      : "**Access:** any valid access token bound to the project.";
  return `**Scope:** \`${scopes.join("`, `")}\`${anonymous ? " (anonymous for public MoveSpecs)" : ""}.`;
}

/**
 * The envelope narrowed to one status: its codes, retryability and reasons (so a contract test
 * fails on a reason this operation does not document).
 */
function errorSchemaFor(
  codes: ApiErrorCode[],
  reasons: ErrorReason[],
  components: SchemaComponents,
): Json {
  if (reasons.length === 1 && reasons[0] === "INTERNAL") return components.use(ErrorEnvelope);
  const schema = JSON.parse(JSON.stringify(ErrorEnvelope)) as {
    title?: string;
    properties: {
      error: { properties: Record<string, Json & { properties?: Record<string, Json> }> };
    };
  };
  delete schema.title;
  const error = schema.properties.error.properties;
  error.code = { ...error.code, enum: codes };
  const retryable = new Set(codes.map((code) => API_ERROR_CODES[code].retryable));
  if (retryable.size === 1) error.retryable = { ...error.retryable, const: [...retryable][0] };
  const details = error.details.properties as Record<string, Json>;
  details.reason = { ...details.reason, enum: reasons };
  return components.use(schema);
}

function errorResponse(
  status: number,
  entry: { codes: Set<ApiErrorCode>; reasons: ErrorReason[] },
  components: SchemaComponents,
): Json {
  const codes = [...entry.codes];
  const reasons = [...entry.reasons].sort();
  const headers: Json = { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } };
  if (status === 429 || status === 503)
    headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" };
  if (status === 401)
    headers["WWW-Authenticate"] = header('`Bearer error="invalid_token"` when a token was refused');
  return {
    description: `${STATUS_TEXT[status] ?? "Error"}. \`details.reason\`: ${reasons.map((r) => `\`${r}\``).join(", ")}.`,
    headers,
    content: {
      "application/json": {
        schema: errorSchemaFor(codes, reasons, components),
        example: {
          error: {
            code: CODE_FROM_REASON[reasons[0]],
            message: `${reasons[0].toLowerCase().replaceAll("_", " ")}`,
            retryable: API_ERROR_CODES[CODE_FROM_REASON[reasons[0]]].retryable,
            details: { reason: reasons[0], request_id: "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d" },
          },
        },
      },
    },
  };
}

function operationObject(operation: Operation, components: SchemaComponents): Json {
  const parameters: Json[] = [{ $ref: "#/components/parameters/X-Request-Id" }];
  for (const param of operation.pathParams ?? []) {
    parameters.push({
      name: param.name,
      in: "path",
      required: true,
      description: `${param.description}; an id that is not a lowercase UUID answers like an unknown one (404)`,
      schema: components.use(PathId),
    });
  }
  if (operation.query) {
    const query = JSON.parse(JSON.stringify(operation.query)) as {
      properties: Record<string, Json>;
    };
    for (const [name, schema] of Object.entries(query.properties)) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: "query", required: false, description, schema: rest });
    }
  }
  if (operation.idempotent) parameters.push({ $ref: "#/components/parameters/Idempotency-Key" });
  if (operation.ifMatch) parameters.push({ $ref: "#/components/parameters/If-Match" });

  const successHeaders: Json = { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } };
  if (operation.etag) successHeaders.ETag = { $ref: "#/components/headers/ETag" };
  if (operation.location) successHeaders.Location = header("the new resource's path");
  if (operation.noStore) successHeaders["Cache-Control"] = header("`no-store`");

  const responses: Json = {
    [operation.status]: {
      description: operation.status === 201 ? "Created" : "OK",
      headers: successHeaders,
      content: {
        "application/json": {
          schema: components.use(operation.response),
          example: exampleOf(JSON.parse(JSON.stringify(operation.response))),
        },
      },
    },
  };
  for (const [status, entry] of reasonsByStatus(operation)) {
    responses[status] = errorResponse(status, entry, components);
  }

  const result: Json = {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: `${operation.description}\n\n${scopeNote(operation)}`,
    security: securityOf(operation),
    parameters,
  };
  if (operation.body) {
    result.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: components.use(operation.body),
          example: exampleOf(JSON.parse(JSON.stringify(operation.body))),
        },
      },
    };
  }
  result.responses = responses;
  return result;
}

const OVERVIEW = `The public API of the movement-detection service: exchange an API key or a service-account secret for a short-lived bearer token, author MoveSpecs (a mutable draft, immutable numbered versions, one released version), open detection sessions and stream pose frames over a websocket to get detection events back. Public MoveSpecs form a searchable catalogue.

**Conventions.** JSON bodies (\`Content-Type: application/json\`). Ids are lowercase UUIDs (opaque: never parse them). Timestamps are ISO 8601 UTC with milliseconds. Optional fields without a value are omitted, never \`null\`.

**Authentication.** \`POST /api/auth/access-tokens\` turns a credential into an access token (900 s by default); send it as \`Authorization: Bearer <token>\` and mint a new one before it expires. Each operation lists the scope it needs.

**Errors.** Every non-2xx answer is \`{"error": {"code", "message", "retryable", "details": {"reason", "request_id", ...}}}\`. Branch on \`details.reason\`. An invalid request lists every invalid field in \`details.errors\` (\`field\`, \`reason\`, \`message\`); the first also sets \`details.field\`. \`retryable: true\` errors may succeed later: wait \`Retry-After\` seconds when sent.

**Safe retries.** The three creating POSTs take an \`Idempotency-Key\` (up to 255 characters): a repeat with the same key and body within 24 h answers the first response again and creates nothing. Drafts carry an \`ETag\`; \`PUT .../draft\` with \`If-Match\` refuses to overwrite someone else's change (412).

**Every response** carries \`X-Request-Id\` (yours if sane, else a new one); quote it when reporting a problem.`;

/** The whole document. */
export function openApiDocument(): Json {
  const components = new SchemaComponents("#/components/schemas/");
  const paths: Record<string, Json> = {};
  for (const operation of OPERATIONS) {
    paths[operation.path] ??= {};
    paths[operation.path][operation.method] = operationObject(operation, components);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Movement detection service API",
      version: API_VERSION,
      description: `${OVERVIEW}\n\n${streamOverview()}`,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [
      {
        url: "/",
        description: "the gateway serving this document (`npm start`: http://127.0.0.1:8080)",
      },
    ],
    tags: [
      { name: "Health", description: "Liveness for clients and deployments." },
      { name: "Authentication", description: "Credentials to access tokens." },
      { name: "Projects", description: "The token's project." },
      {
        name: "MoveSpecs",
        description: "Authoring (draft, versions, release) and the public catalogue.",
      },
      {
        name: "Detection sessions",
        description: "Sessions; their realtime stream is described in /asyncapi.json.",
      },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: `An access token from \`POST /api/auth/access-tokens\`. Scopes:\n\n${Object.entries(
            SCOPE_DESCRIPTIONS,
          )
            .map(([scope, grants]) => `- \`${scope}\`: ${grants}`)
            .join("\n")}`,
        },
      },
      headers: {
        "X-Request-Id": header(
          "the request's id (yours if you sent a sane one); also in error bodies and logs",
          { type: "string" },
          true,
        ),
        ETag: header("the resource's entity tag; a draft's goes back in `If-Match`", {
          type: "string",
          examples: ['"r7"'],
        }),
        "Retry-After": header("seconds to wait before retrying", {
          type: "string",
          pattern: "^[0-9]+$",
          examples: ["3"],
        }),
      },
      parameters: {
        "X-Request-Id": {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description:
            "your id for the request: kept when it is 1 to 128 letters, digits, `.`, `_`, `:` or `-`, else replaced by a new one",
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
        "Idempotency-Key": {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description:
            "a repeat with the same key and body within 24 h answers the first response and creates nothing; the key with another body is 409 IDEMPOTENCY_KEY_REUSED",
          schema: { type: "string", minLength: 1, maxLength: 255 },
        },
        "If-Match": {
          name: "If-Match",
          in: "header",
          required: false,
          description:
            "the draft's ETag: replace only if nobody changed it since (else 412 ETAG_MISMATCH); `*` matches any",
          schema: { type: "string", examples: ['"r7"'] },
        },
      },
    },
  };
}
