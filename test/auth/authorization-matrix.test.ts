import { newId } from "@movement-detection/shared/ids";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  RUNTIME_TOKEN_AUDIENCE,
  RUNTIME_TOKEN_TYPE,
  SCOPES,
  type Scope,
} from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { ROUTE_POLICIES } from "../../gateway/auth/scopes.js";
import { openRaw } from "../detection/support/raw-stream.js";
import { api } from "../movespecs/support/api.js";
import {
  createProjectWithKey,
  mintAccessToken,
  mintRuntimeToken,
  type TestProject,
} from "../support/auth.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import {
  forgeAccessToken,
  generateTestKey,
  type TestKey,
  tamperPayload,
  tamperSignature,
  unsecured,
  writeKeyDirectory,
} from "./token-forge.js";

/**
 * Every public route x every kind of token, black box through the gateway, against the contract's
 * scope table. The auth service signs with a key from SIGNING_KEYS_DIR that this test also holds,
 * so it can forge tokens that differ from a valid one in exactly one respect (expired, wrong aud,
 * wrong typ, ...). Every route the gateway serves is a row (checked against its policy table and
 * its 405 `Allow` answers), the realtime stream included; nothing is skipped, and a resource the
 * rows need that cannot be created fails the whole file loudly.
 */

/** The ways a token can be wrong in exactly one respect; every one is refused, access or runtime. */
const DEFECTS = [
  "malformed",
  "expired",
  "signature tampered",
  "payload tampered",
  "alg none",
  "unknown key",
  "wrong aud",
  "wrong iss",
  "wrong typ",
  "lives a year",
] as const;
type Defect = (typeof DEFECTS)[number];

const VARIANTS = [
  "no token",
  ...DEFECTS,
  "runtime token",
  "another project",
  "missing scope",
  "only its scope",
  "valid",
] as const;
type Variant = (typeof VARIANTS)[number];
const INVALID: ReadonlySet<Variant> = new Set<Variant>([
  ...DEFECTS.filter((defect) => defect !== "expired"),
  "runtime token",
]);

/** The own project's private resources every row needs, created through the public API. */
interface Resources {
  readonly project: TestProject;
  readonly movespecId: string;
  readonly draftYaml: string;
  readonly versionId: string;
  readonly sessionId: string;
  /** A session of its own for the stream rows (the finalize row ends `sessionId`). */
  readonly streamSession: {
    readonly sessionId: string;
    readonly runtimeToken: string;
    readonly streamUrl: string;
  };
  /** The runtime token minted with `sessionId`: another session's, seen from the stream rows. */
  readonly otherRuntimeToken: string;
  /** Creates one more session of the MoveSpec. */
  newSession(): Promise<{ sessionId: string; runtimeToken: string; streamUrl: string }>;
}

type Policy = "public" | "token" | { scope: Scope; anonymous: boolean };

interface RouteCase {
  readonly method: "GET" | "POST" | "PUT";
  readonly template: string;
  readonly policy: Policy;
  path(r: Resources): string;
  body?(r: Resources): unknown;
  /** Where the project comes from the body rather than the path. */
  readonly projectInBody?: boolean;
  /** Each request gets a session of its own: a finalized session cannot be finalized again. */
  readonly freshSession?: boolean;
}

const routes: RouteCase[] = [
  { method: "GET", template: "/api/health", policy: "public", path: () => "/api/health" },
  { method: "GET", template: "/healthz", policy: "public", path: () => "/healthz" },
  {
    method: "POST",
    template: "/api/auth/access-tokens",
    policy: "public",
    path: () => "/api/auth/access-tokens",
    body: (r) => ({ api_key: r.project.apiKey }),
  },
  {
    method: "GET",
    template: "/api/projects/{project_id}",
    policy: "token",
    path: (r) => `/api/projects/${r.project.projectId}`,
  },
  {
    method: "GET",
    template: "/api/projects/{project_id}/movespecs",
    policy: { scope: "movespecs:read", anonymous: false },
    path: (r) => `/api/projects/${r.project.projectId}/movespecs`,
  },
  { method: "GET", template: "/api/movespecs", policy: "public", path: () => "/api/movespecs" },
  {
    method: "POST",
    template: "/api/movespecs",
    policy: { scope: "movespecs:write", anonymous: false },
    path: () => "/api/movespecs",
    body: (r) => ({ name: "matrix", project_id: r.project.projectId }),
    projectInBody: true,
  },
  ...movespecRoute("GET", "", { scope: "movespecs:read", anonymous: true }),
  ...movespecRoute("GET", "/draft", { scope: "movespecs:read", anonymous: false }),
  ...movespecRoute("PUT", "/draft", { scope: "movespecs:write", anonymous: false }, (r) => ({
    yaml_source: r.draftYaml,
  })),
  ...movespecRoute("POST", "/draft/validate", { scope: "movespecs:write", anonymous: false }),
  ...movespecRoute("GET", "/versions", { scope: "movespecs:read", anonymous: true }),
  ...movespecRoute("POST", "/versions", { scope: "movespecs:write", anonymous: false }),
  ...versionRoute("GET", "", { scope: "movespecs:read", anonymous: true }),
  ...versionRoute("POST", "/release", { scope: "movespecs:write", anonymous: false }),
  ...movespecRoute("GET", "/released-source", { scope: "movespecs:read", anonymous: true }),
  {
    method: "POST",
    template: "/api/detection/sessions",
    policy: { scope: "sessions:write", anonymous: false },
    path: () => "/api/detection/sessions",
    body: (r) => ({ project_id: r.project.projectId, movespec_id: r.movespecId }),
    projectInBody: true,
  },
  ...sessionRoute("GET", "", { scope: "sessions:read", anonymous: false }),
  ...sessionRoute("POST", "/finalize", { scope: "sessions:write", anonymous: false }, true),
];

function movespecRoute(
  method: RouteCase["method"],
  suffix: string,
  policy: Policy,
  body?: RouteCase["body"],
): RouteCase[] {
  return [
    {
      method,
      template: `/api/movespecs/{movespec_id}${suffix}`,
      policy,
      path: (r) => `/api/movespecs/${r.movespecId}${suffix}`,
      body,
    },
  ];
}

function versionRoute(method: RouteCase["method"], suffix: string, policy: Policy): RouteCase[] {
  return [
    {
      method,
      template: `/api/movespecs/{movespec_id}/versions/{version_id}${suffix}`,
      policy,
      path: (r) => `/api/movespecs/${r.movespecId}/versions/${r.versionId}${suffix}`,
    },
  ];
}

function sessionRoute(
  method: RouteCase["method"],
  suffix: string,
  policy: Policy,
  freshSession = false,
): RouteCase[] {
  return [
    {
      method,
      template: `/api/detection/sessions/{session_id}${suffix}`,
      policy,
      path: (r) => `/api/detection/sessions/${r.sessionId}${suffix}`,
      freshSession,
    },
  ];
}

/**
 * The realtime stream (contract: sessions:write, through the runtime token that session creation
 * returns; never an access token). Its rows send `hello` with each kind of runtime token.
 */
const STREAM = {
  method: "GET",
  template: "/api/detection/sessions/{session_id}/stream",
  /** The gateway ignores Authorization here; the replica checks the runtime token. */
  policy: "public" as Policy,
  path: (r: Resources) => `/api/detection/sessions/${r.streamSession.sessionId}/stream`,
} as const;

const STREAM_VARIANTS = [
  "no token",
  ...DEFECTS,
  "access token",
  "another session's",
  "forged control",
  "valid",
] as const;
type StreamVariant = (typeof STREAM_VARIANTS)[number];

interface Expected {
  readonly status: number | "2xx";
  readonly reasons?: readonly string[];
}

/** The contract's answer for a route and a kind of token (own project's private resources). */
function expected(route: RouteCase, variant: Variant): Expected {
  if (route.policy === "public" && route.template !== "/api/movespecs") return { status: "2xx" };
  if (variant === "expired") return { status: 401, reasons: ["TOKEN_EXPIRED"] };
  if (INVALID.has(variant)) return { status: 401, reasons: ["TOKEN_INVALID"] };
  if (route.policy === "public") return { status: "2xx" }; // the public listing, any valid token
  if (variant === "no token") {
    // A private resource never reveals that it exists: anonymous reads of it are 404.
    if (typeof route.policy === "object" && route.policy.anonymous) return { status: 404 };
    return { status: 401, reasons: ["TOKEN_MISSING"] };
  }
  if (variant === "another project") {
    if (route.projectInBody) {
      return { status: 403, reasons: ["PROJECT_MISMATCH", "PROJECT_NOT_FOUND"] };
    }
    return { status: 404 };
  }
  if (variant === "missing scope" && typeof route.policy === "object") {
    // Where a route is readable anonymously when public, a token without the scope may be
    // treated like no token (404 for a private resource) or refused (403): both reveal nothing.
    if (route.policy.anonymous) return { status: 403, reasons: ["SCOPE_MISSING", "404"] };
    return { status: 403, reasons: ["SCOPE_MISSING"] };
  }
  return { status: "2xx" }; // every row's resources exist and its request is valid
}

describe("authorization matrix (black box through the gateway)", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let keys: { dir: string; remove: () => Promise<void> };
  let signingKey: TestKey;
  let own: Resources;
  let other: TestProject;
  const tokens = new Map<Variant, string>();
  const missingScopeTokens = new Map<Scope, string>();
  /** Least privilege: a token with nothing but the route's scope must do. */
  const onlyScopeTokens = new Map<Scope, string>();
  const streamTokens = new Map<StreamVariant, string | undefined>();

  const send = (route: RouteCase, path: string, authorization?: string) =>
    fetch(`${system.gatewayUrl}${path}`, {
      method: route.method,
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(route.body ? { "content-type": "application/json" } : {}),
      },
      body: route.body ? JSON.stringify(route.body(own)) : undefined,
    });

  before(async () => {
    signingKey = await generateTestKey();
    keys = await writeKeyDirectory([signingKey]);
    system = await startTestSystem({
      // A token naming an unknown key waits for the next key fetch: 1 s apart by default, for
      // each of the routes' "unknown key" rows.
      env: { TOKEN_KEYS_REFETCH_INTERVAL_MS: "50" },
      serviceEnv: { auth: { SIGNING_KEYS_DIR: keys.dir } },
    });
    const project = await createProjectWithKey(system, { name: "matrix own" });
    other = await createProjectWithKey(system, { name: "matrix other" });
    const valid = await mintAccessToken(system, { apiKey: project.apiKey });
    own = await createResources(system, project, valid);
    const claims = { projectId: project.projectId, organizationId: project.organizationId };
    const stranger = await generateTestKey();
    const defects = await forgeDefects(
      (key, overrides) => forgeAccessToken(key, claims, overrides),
      {
        signingKey,
        stranger,
        valid,
        tamper: { project_id: other.projectId },
        wrongAudience: RUNTIME_TOKEN_AUDIENCE,
        wrongType: "JWT",
      },
    );
    for (const [defect, token] of defects) tokens.set(defect, token);
    const runtime = await mintRuntimeToken(system, { sessionId: newId(), ...claims });
    tokens.set("runtime token", runtime.runtimeToken);
    tokens.set("another project", await mintAccessToken(system, { apiKey: other.apiKey }));
    tokens.set("valid", valid);
    for (const scope of SCOPES) {
      const rest = SCOPES.filter((s) => s !== scope);
      missingScopeTokens.set(
        scope,
        await mintAccessToken(system, { apiKey: project.apiKey, scopes: rest }),
      );
      onlyScopeTokens.set(
        scope,
        await mintAccessToken(system, { apiKey: project.apiKey, scopes: [scope] }),
      );
    }

    // The stream's credential is a runtime token for its session (forged ones differ in one way).
    const streamClaims = { ...claims, sessionId: own.streamSession.sessionId };
    const forgedRuntime = await forgeRuntimeToken(signingKey, streamClaims);
    streamTokens.set("no token", undefined);
    const streamDefects = await forgeDefects(
      (key, overrides) => forgeRuntimeToken(key, streamClaims, overrides),
      {
        signingKey,
        stranger,
        valid: forgedRuntime,
        tamper: { sub: own.sessionId },
        wrongAudience: ACCESS_TOKEN_AUDIENCE,
        wrongType: ACCESS_TOKEN_TYPE,
      },
    );
    for (const [defect, token] of streamDefects) streamTokens.set(defect, token);
    streamTokens.set("access token", valid);
    streamTokens.set("another session's", own.otherRuntimeToken);
    streamTokens.set("forged control", forgedRuntime);
    streamTokens.set("valid", own.streamSession.runtimeToken);
  });

  after(async () => {
    await system?.stop();
    await keys?.remove();
  });

  it("forged control: a token forged with the served key and no change is accepted", async () => {
    const claims = { projectId: own.project.projectId, organizationId: own.project.organizationId };
    const token = await forgeAccessToken(signingKey, claims);
    const response = await fetch(`${system.gatewayUrl}/api/projects/${own.project.projectId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).to.equal(200);
  });

  describe("covers every route the gateway serves", () => {
    const rows = [...routes.map((route) => ({ method: route.method, path: route.path })), STREAM];

    it("each entry of the gateway's policy table is exactly one row, and each row one entry", () => {
      const rowsOf = (rule: (typeof ROUTE_POLICIES)[number]) =>
        rows.filter((row) => row.method === rule.method && rule.path.test(row.path(own)));
      for (const rule of ROUTE_POLICIES) {
        expect(rowsOf(rule), `rows for ${rule.method} ${rule.path}`).to.have.length(1);
      }
      for (const row of rows) {
        const rules = ROUTE_POLICIES.filter(
          (rule) => rule.method === row.method && rule.path.test(row.path(own)),
        );
        expect(rules, `policies for ${row.method} ${row.path(own)}`).to.have.length(1);
      }
    });

    it("the gateway's policy table says what the contract says, row by row", () => {
      const asDeclared = (policy: Policy) =>
        typeof policy === "string" ? { kind: policy } : { kind: "scope", ...policy };
      for (const row of [...routes, STREAM]) {
        const rule = ROUTE_POLICIES.find(
          (candidate) => candidate.method === row.method && candidate.path.test(row.path(own)),
        );
        expect(rule?.policy, `${row.method} ${row.template}`).to.deep.equal(asDeclared(row.policy));
      }
    });

    it("each row's path accepts exactly the methods of its rows (405 Allow)", async () => {
      const paths = new Map<string, Set<string>>();
      for (const route of routes) {
        const methods = paths.get(route.path(own)) ?? new Set<string>();
        methods.add(route.method);
        paths.set(route.path(own), methods);
      }
      for (const [path, methods] of paths) {
        const response = await fetch(`${system.gatewayUrl}${path}`, { method: "PATCH" });
        expect(response.status, `PATCH ${path}`).to.equal(405);
        const allow = (response.headers.get("allow") ?? "")
          .split(",")
          .map((method) => method.trim())
          .filter((method) => method !== "HEAD" && method !== "OPTIONS");
        expect(allow.sort(), `methods served at ${path}`).to.deep.equal([...methods].sort());
      }
    });
  });

  for (const route of routes) {
    describe(`${route.method} ${route.template}`, () => {
      for (const variant of VARIANTS) {
        it(`with ${variant}`, async () => {
          let token = tokens.get(variant);
          const scoped = variant === "missing scope" ? missingScopeTokens : onlyScopeTokens;
          if (variant === "missing scope" || variant === "only its scope") {
            // Routes without a scope get a token without (or with only) a scope they never need.
            token = scoped.get(
              typeof route.policy === "object" ? route.policy.scope : "tokens:read",
            );
          }
          const resources = route.freshSession
            ? { ...own, sessionId: (await own.newSession()).sessionId }
            : own;
          const response = await send(route, route.path(resources), token && `Bearer ${token}`);
          const body = (await response.json().catch(() => ({}))) as {
            error?: { code: string; details: { reason: string } };
          };
          const want = expected(route, variant);
          const context = `${response.status} ${JSON.stringify(body)}`;
          const reason = body.error?.details.reason;
          expect(reason, `the route itself must exist: ${context}`).not.to.equal("ROUTE_NOT_FOUND");
          if (want.status === "2xx") {
            expect(response.status, context).to.be.within(200, 299);
          } else if (want.reasons?.includes("404") && response.status === 404) {
            // the alternative the expectation allows
          } else {
            expect(response.status, context).to.equal(want.status);
          }
          if (response.status === 404) expect(reason, context).to.match(/^[A-Z]+_NOT_FOUND$/);
          if (want.reasons && response.status !== 404) {
            expect(want.reasons, context).to.include(reason);
          }
          if (response.status === 401) {
            expect(response.headers.get("www-authenticate")).to.match(/^Bearer/);
          }
        });
      }
    });
  }

  describe(`${STREAM.method} ${STREAM.template} (websocket; the runtime token in hello)`, () => {
    for (const variant of STREAM_VARIANTS) {
      const attaches = variant === "valid" || variant === "forged control";
      it(`with ${variant}: ${attaches ? "ready" : "closed 4401"}`, async () => {
        const stream = await openRaw(own.streamSession.streamUrl);
        try {
          stream.send({ type: "hello", runtime_token: streamTokens.get(variant) });
          if (attaches) {
            const ready = await stream.next("ready");
            expect(ready.session_id).to.equal(own.streamSession.sessionId);
            return;
          }
          const closed = await stream.closed();
          const context = JSON.stringify(stream.messages);
          expect(closed.code, context).to.equal(4401);
          const reasons = stream.ofType("error").map((message) => message.code);
          const want =
            variant === "expired"
              ? "TOKEN_EXPIRED"
              : variant === "another session's"
                ? "TOKEN_SESSION_MISMATCH"
                : "TOKEN_INVALID";
          expect(reasons, context).to.include(want);
          expect(stream.ofType("ready"), context).to.deep.equal([]);
        } finally {
          stream.close();
        }
      });
    }
  });

  describe("private resources answer exactly like missing ones", () => {
    const idRoutes = routes.filter(
      (route) => route.template.includes("{") && route.method === "GET",
    );
    for (const route of idRoutes) {
      for (const who of ["another project", "no token"] as const) {
        it(`${route.template}, ${who}`, async () => {
          const path = route.path(own);
          const missing = path.replace(/[0-9a-f-]{36}/g, () => newId());
          const token = who === "no token" ? undefined : `Bearer ${tokens.get("another project")}`;
          const [real, fake] = await Promise.all([
            send(route, path, token),
            send(route, missing, token),
          ]);
          const ids = [...path.matchAll(/[0-9a-f-]{36}/g), ...missing.matchAll(/[0-9a-f-]{36}/g)];
          const strip = async (response: Response) => {
            let text = await response.text();
            for (const [id] of ids) text = text.replaceAll(id, "<id>");
            const body = JSON.parse(text) as { error: { details: Record<string, unknown> } };
            delete body.error.details.request_id;
            return { status: response.status, body };
          };
          const [a, b] = [await strip(real), await strip(fake)];
          expect(a.body.error.details.reason).not.to.equal("ROUTE_NOT_FOUND");
          const needsToken =
            route.policy === "token" ||
            (typeof route.policy === "object" && !route.policy.anonymous);
          if (who === "no token" && needsToken) {
            expect(a).to.deep.equal(b);
            expect(a.status).to.equal(401);
            return;
          }
          expect(a.status).to.equal(404);
          expect(a).to.deep.equal(b);
        });
      }
    }
  });

  describe("Authorization header forms", () => {
    for (const header of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer  ", "Token abc", "Bearer a b"]) {
      it(`"${header}" is 401 TOKEN_INVALID`, async () => {
        const response = await fetch(`${system.gatewayUrl}/api/projects/${own.project.projectId}`, {
          headers: { authorization: header },
        });
        const body = (await response.json()) as { error: { details: { reason: string } } };
        expect(response.status).to.equal(401);
        expect(body.error.details.reason).to.equal("TOKEN_INVALID");
      });
    }

    it("the scheme is case-insensitive", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/projects/${own.project.projectId}`, {
        headers: { authorization: `bearer ${tokens.get("valid")}` },
      });
      expect(response.status).to.equal(200);
    });

    it("GET /api/projects/{id} answers the project exactly as the spec shows", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/projects/${own.project.projectId}`, {
        headers: { authorization: `Bearer ${tokens.get("valid")}` },
      });
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).to.deep.equal([
        "created_at",
        "name",
        "organization_id",
        "project_id",
        "slug",
      ]);
      expect(body.project_id).to.equal(own.project.projectId);
      expect(body.organization_id).to.equal(own.project.organizationId);
      expect(body.slug).to.equal(own.project.projectSlug);
      expect(body.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it("a project id that is not a UUID is 404 like any unknown project", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/projects/not-a-uuid`, {
        headers: { authorization: `Bearer ${tokens.get("valid")}` },
      });
      expect(response.status).to.equal(404);
    });
  });
});

/**
 * The own project's private resources, created through the public API. Every row depends on them,
 * so a step that fails throws with its answer and fails the whole file: a broken
 * POST /api/movespecs must never quietly turn rows into passes.
 */
async function createResources(
  system: TestSystem,
  project: TestProject,
  token: string,
): Promise<Resources> {
  const step = async (method: string, path: string, status: number, body?: unknown) => {
    const response = await api(system.gatewayUrl, method, path, { token, body });
    if (response.status !== status) {
      throw new Error(
        `matrix set-up: ${method} ${path} answered ${response.status}, not ${status}: ${JSON.stringify(response.body)}`,
      );
    }
    return response.body;
  };
  const field = (body: Record<string, unknown>, name: string, what: string): string => {
    const value = body[name];
    if (typeof value !== "string" || value === "") {
      throw new Error(`matrix set-up: ${what} has no ${name}: ${JSON.stringify(body)}`);
    }
    return value;
  };
  const movespec = await step("POST", "/api/movespecs", 201, {
    name: "matrix private",
    project_id: project.projectId,
  });
  const movespecId = field(movespec, "movespec_id", "POST /api/movespecs");
  const draft = await step("GET", `/api/movespecs/${movespecId}/draft`, 200);
  const version = await step("POST", `/api/movespecs/${movespecId}/versions`, 201);
  const versionId = field(version, "movespec_version_id", "POST .../versions");
  await step("POST", `/api/movespecs/${movespecId}/versions/${versionId}/release`, 200);
  const newSession = async () => {
    const created = await step("POST", "/api/detection/sessions", 201, {
      project_id: project.projectId,
      movespec_id: movespecId,
    });
    return {
      sessionId: field(created, "session_id", "POST /api/detection/sessions"),
      runtimeToken: field(created, "runtime_token", "POST /api/detection/sessions"),
      streamUrl: field(created, "stream_url", "POST /api/detection/sessions"),
    };
  };
  const session = await newSession();
  return {
    project,
    movespecId,
    draftYaml: field(draft, "yaml_source", "GET .../draft"),
    versionId,
    sessionId: session.sessionId,
    streamSession: await newSession(),
    otherRuntimeToken: session.runtimeToken,
    newSession,
  };
}

type Overrides = { header?: Record<string, unknown>; payload?: Record<string, unknown> };

/** Each defect of a token: `valid` altered, or `forge` (fixed claims) with one part overridden. */
async function forgeDefects(
  forge: (key: TestKey, overrides?: Overrides) => Promise<string>,
  options: {
    signingKey: TestKey;
    stranger: TestKey;
    valid: string;
    tamper: Record<string, unknown>;
    wrongAudience: string;
    wrongType: string;
  },
): Promise<Map<Defect, string>> {
  const now = Math.floor(Date.now() / 1000);
  const { signingKey, valid } = options;
  const forged: Record<Defect, string> = {
    malformed: "not.a.jwt",
    expired: await forge(signingKey, { payload: { iat: now - 1000, exp: now - 60 } }),
    "signature tampered": tamperSignature(valid),
    "payload tampered": tamperPayload(valid, options.tamper),
    "alg none": unsecured(valid),
    "unknown key": await forge(options.stranger),
    "wrong aud": await forge(signingKey, { payload: { aud: options.wrongAudience } }),
    "wrong iss": await forge(signingKey, { payload: { iss: "https://evil.example" } }),
    "wrong typ": await forge(signingKey, { header: { typ: options.wrongType } }),
    // Signed with the served key and otherwise valid: longer than any token this system issues.
    "lives a year": await forge(signingKey, { payload: { iat: now, exp: now + 365 * 86400 } }),
  };
  return new Map(DEFECTS.map((defect) => [defect, forged[defect]]));
}

/** A runtime token exactly like the auth service's for `sessionId`, with any part overridden. */
function forgeRuntimeToken(
  key: TestKey,
  claims: { projectId: string; organizationId: string; sessionId: string },
  overrides: Overrides = {},
): Promise<string> {
  return forgeAccessToken(key, claims, {
    header: { typ: RUNTIME_TOKEN_TYPE, ...overrides.header },
    payload: {
      aud: RUNTIME_TOKEN_AUDIENCE,
      sub: claims.sessionId,
      scope: undefined,
      client_id: undefined,
      cred_type: undefined,
      ...overrides.payload,
    },
  });
}
