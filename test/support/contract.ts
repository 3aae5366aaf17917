/**
 * Contract tests for free: every response the test suite receives from a test system's gateway is
 * validated against the OpenAPI document (gateway/api-docs), through a wrapper of the global
 * `fetch` installed for the whole mocha run (test/support/contract-hooks.ts). The status must be
 * one the operation documents, the body must match that status's schema (for errors: the codes
 * and reasons documented for it), and every response must carry X-Request-Id. A mismatch makes
 * the `fetch` call reject with a ContractViolation, so the test that made it fails, naming it.
 *
 * Requests to routes the document does not describe (an unknown path, a wrong method) must still
 * answer the error envelope. The documentation routes themselves (/docs, /openapi.json,
 * /asyncapi.json) and OPTIONS pre-flights are not API operations and are not checked.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../../gateway/api-docs/openapi.js";
import { DOCS_PATHS, STUDIO_PATHS } from "../../gateway/public-paths.js";

// biome-ignore lint/suspicious/noExplicitAny: documents are walked
type Json = Record<string, any>;

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContractViolation";
  }
}

const gatewayOrigins = new Set<string>();

/**
 * Responses from this gateway are checked from now on (startTestSystem calls it), until the
 * returned function is called: once the system stopped, its port may be any other process's
 * (another system's admin port was once checked as a gateway).
 */
export function checkResponsesOf(gatewayUrl: string): () => void {
  const origin = new URL(gatewayUrl).origin;
  gatewayOrigins.add(origin);
  return () => gatewayOrigins.delete(origin);
}

interface Route {
  readonly path: string;
  readonly pattern: RegExp;
  readonly methods: Json;
}

let compiled:
  | { document: Json; routes: Route[]; ajv: Ajv2020; validators: Map<string, ValidateFunction> }
  | undefined;

function contract() {
  if (compiled) return compiled;
  const document = openApiDocument() as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, "openapi.json");
  const routes = Object.entries(document.paths as Json).map(([path, methods]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    methods,
  }));
  compiled = { document, routes, ajv, validators: new Map() };
  return compiled;
}

function pointer(...parts: string[]): string {
  return parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

function validatorFor(ref: string): ValidateFunction {
  const { ajv, validators } = contract();
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

/** Checks one response; throws ContractViolation on a mismatch. */
export function checkResponse(
  method: string,
  url: URL,
  status: number,
  headers: Headers,
  text: string,
): void {
  if (!gatewayOrigins.has(url.origin)) return;
  if (method === "OPTIONS" || DOCS_PATHS.test(url.pathname) || STUDIO_PATHS.test(url.pathname))
    return;
  const where = `${method} ${url.pathname}${url.search} -> ${status}`;
  const fail = (what: string): never => {
    throw new ContractViolation(
      `contract violation: ${where}: ${what}\n  body: ${text.slice(0, 500)}`,
    );
  };
  if (!headers.get("x-request-id")) fail("no X-Request-Id header");
  const route = contract().routes.find((candidate) => candidate.pattern.test(url.pathname));
  const operation = route?.methods[method.toLowerCase()] as Json | undefined;
  let schemaRef: string;
  if (!route || !operation) {
    // Not an operation: an unknown route or method must still answer the envelope.
    if (status < 400) fail("a route the OpenAPI document does not describe answered success");
    schemaRef = "openapi.json#/components/schemas/ErrorEnvelope";
  } else {
    const response = operation.responses[String(status)] as Json | undefined;
    if (!response) {
      fail(
        `status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(", ")})`,
      );
    }
    for (const name of Object.keys(response?.headers ?? {})) {
      const declared = response?.headers[name] as Json;
      const required =
        name === "X-Request-Id" || name === "ETag" || name === "Location" || declared.required;
      if (required && status < 300 && !headers.get(name)) fail(`no ${name} header`);
    }
    schemaRef = `openapi.json#/${pointer("paths", route.path, method.toLowerCase(), "responses", String(status), "content", "application/json", "schema")}`;
  }
  if (method === "HEAD") return;
  if (!(headers.get("content-type") ?? "").startsWith("application/json")) {
    fail(`Content-Type is ${headers.get("content-type")}, not application/json`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail("the body is not JSON");
  }
  const validate = validatorFor(schemaRef);
  if (!validate(body)) {
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
    fail(`the body does not match ${schemaRef.split("#")[1]}:\n    ${errors.join("\n    ")}`);
  }
}

/** Wraps a fetch so that every gateway response it returns has been checked. */
export function contractCheckedFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!gatewayOrigins.has(url.origin)) return response;
    const text = await response.clone().text();
    checkResponse(request.method, url, response.status, response.headers, text);
    return response;
  };
}
