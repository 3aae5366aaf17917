import { expect } from "chai";
import { newId } from "../../services/shared/ids/uuid-v7.js";
import { SCOPES, type Scope } from "../../services/shared/tokens/scopes.js";
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
 * wrong typ, ...). Routes of other areas not built yet are skipped, with that reason.
 */

type Variant =
  | "no token"
  | "malformed"
  | "expired"
  | "signature tampered"
  | "payload tampered"
  | "alg none"
  | "unknown key"
  | "wrong aud"
  | "wrong iss"
  | "wrong typ"
  | "runtime token"
  | "another project"
  | "missing scope"
  | "valid";

const VARIANTS: readonly Variant[] = [
  "no token",
  "malformed",
  "expired",
  "signature tampered",
  "payload tampered",
  "alg none",
  "unknown key",
  "wrong aud",
  "wrong iss",
  "wrong typ",
  "runtime token",
  "another project",
  "missing scope",
  "valid",
];
const INVALID: ReadonlySet<Variant> = new Set([
  "malformed",
  "signature tampered",
  "payload tampered",
  "alg none",
  "unknown key",
  "wrong aud",
  "wrong iss",
  "wrong typ",
  "runtime token",
]);

interface Resources {
  project: TestProject;
  movespecId?: string;
  draftYaml?: string;
  versionId?: string;
  sessionId?: string;
}

type Policy = "public" | "token" | { scope: Scope; anonymous: boolean };

interface RouteCase {
  readonly method: "GET" | "POST" | "PUT";
  readonly template: string;
  readonly policy: Policy;
  /** undefined: a resource it needs could not be created (its area is not built yet). */
  path(r: Resources): string | undefined;
  body?(r: Resources): unknown;
  /** Where the project comes from the body rather than the path. */
  readonly projectInBody?: boolean;
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
    yaml_source: r.draftYaml ?? "movespec: 1\n",
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
    path: (r) => (r.movespecId ? "/api/detection/sessions" : undefined),
    body: (r) => ({ project_id: r.project.projectId, movespec_id: r.movespecId }),
    projectInBody: true,
  },
  ...sessionRoute("GET", "", { scope: "sessions:read", anonymous: false }),
  ...sessionRoute("POST", "/finalize", { scope: "sessions:write", anonymous: false }),
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
      path: (r) => (r.movespecId ? `/api/movespecs/${r.movespecId}${suffix}` : undefined),
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
      path: (r) =>
        r.movespecId && r.versionId
          ? `/api/movespecs/${r.movespecId}/versions/${r.versionId}${suffix}`
          : undefined,
    },
  ];
}

function sessionRoute(method: RouteCase["method"], suffix: string, policy: Policy): RouteCase[] {
  return [
    {
      method,
      template: `/api/detection/sessions/{session_id}${suffix}`,
      policy,
      path: (r) => (r.sessionId ? `/api/detection/sessions/${r.sessionId}${suffix}` : undefined),
    },
  ];
}

interface Expected {
  /** `authorized`: past authentication and authorization (what the route then says is its own). */
  readonly status: number | "2xx" | "authorized";
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
  return { status: "authorized" };
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
    system = await startTestSystem({ serviceEnv: { auth: { SIGNING_KEYS_DIR: keys.dir } } });
    own = { project: await createProjectWithKey(system, { name: "matrix own" }) };
    other = await createProjectWithKey(system, { name: "matrix other" });
    const valid = await mintAccessToken(system, { apiKey: own.project.apiKey });
    const claims = { projectId: own.project.projectId, organizationId: own.project.organizationId };
    const now = Math.floor(Date.now() / 1000);
    const stranger = await generateTestKey();
    tokens.set("malformed", "not.a.jwt");
    tokens.set(
      "expired",
      await forgeAccessToken(signingKey, claims, { payload: { iat: now - 1000, exp: now - 60 } }),
    );
    tokens.set("signature tampered", tamperSignature(valid));
    tokens.set("payload tampered", tamperPayload(valid, { project_id: other.projectId }));
    tokens.set("alg none", unsecured(valid));
    tokens.set("unknown key", await forgeAccessToken(stranger, claims));
    tokens.set(
      "wrong aud",
      await forgeAccessToken(signingKey, claims, {
        payload: { aud: "urn:movement-detection:realtime" },
      }),
    );
    tokens.set(
      "wrong iss",
      await forgeAccessToken(signingKey, claims, { payload: { iss: "https://evil.example" } }),
    );
    tokens.set("wrong typ", await forgeAccessToken(signingKey, claims, { header: { typ: "JWT" } }));
    const runtime = await mintRuntimeToken(system, { sessionId: newId(), ...claims });
    tokens.set("runtime token", runtime.runtimeToken);
    tokens.set("another project", await mintAccessToken(system, { apiKey: other.apiKey }));
    tokens.set("valid", valid);
    for (const scope of SCOPES) {
      const rest = SCOPES.filter((s) => s !== scope);
      missingScopeTokens.set(
        scope,
        await mintAccessToken(system, { apiKey: own.project.apiKey, scopes: rest }),
      );
    }
    await createResources(system, own, valid);
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

  for (const route of routes) {
    describe(`${route.method} ${route.template}`, () => {
      for (const variant of VARIANTS) {
        it(`with ${variant}`, async function () {
          const path = route.path(own);
          if (path === undefined) this.skip(); // its area (issue 6/7) cannot create the resource yet
          let token = tokens.get(variant);
          if (variant === "missing scope") {
            token =
              typeof route.policy === "object"
                ? missingScopeTokens.get(route.policy.scope)
                : missingScopeTokens.get("tokens:write");
          }
          const response = await send(route, path as string, token ? `Bearer ${token}` : undefined);
          const body = (await response.json().catch(() => ({}))) as {
            error?: { code: string; details: { reason: string } };
          };
          if (body.error?.details.reason === "ROUTE_NOT_FOUND") this.skip(); // not built yet
          const want = expected(route, variant);
          const context = `${response.status} ${JSON.stringify(body)}`;
          if (want.status === "2xx") {
            expect(response.status, context).to.be.within(200, 299);
          } else if (want.status === "authorized") {
            expect([401, 403, 404], context).not.to.include(response.status);
            expect(response.status, context).to.be.below(500);
          } else if (want.reasons?.includes("404") && response.status === 404) {
            // the alternative the expectation allows
          } else {
            expect(response.status, context).to.equal(want.status);
          }
          if (want.reasons && response.status !== 404) {
            expect(want.reasons, context).to.include(body.error?.details.reason);
          }
          if (response.status === 401) {
            expect(response.headers.get("www-authenticate")).to.match(/^Bearer/);
          }
        });
      }
    });
  }

  describe("private resources answer exactly like missing ones", () => {
    const idRoutes = routes.filter(
      (route) => route.template.includes("{") && route.method === "GET",
    );
    for (const route of idRoutes) {
      for (const who of ["another project", "no token"] as const) {
        it(`${route.template}, ${who}`, async function () {
          const path = route.path(own);
          if (path === undefined) this.skip(); // its area (issue 6/7) cannot create the resource yet
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
          if (a.body.error.details.reason === "ROUTE_NOT_FOUND") this.skip(); // not built yet
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
 * The own project's private resources, created through the public API where those routes exist.
 * Whatever cannot be created leaves its routes skipped.
 */
async function createResources(system: TestSystem, own: Resources, token: string) {
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${system.gatewayUrl}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return response.ok ? ((await response.json()) as Record<string, unknown>) : undefined;
  };
  const movespec = await post("/api/movespecs", {
    name: "matrix private",
    project_id: own.project.projectId,
  });
  own.movespecId = movespec?.movespec_id as string | undefined;
  if (!own.movespecId) return;
  const draft = await fetch(`${system.gatewayUrl}/api/movespecs/${own.movespecId}/draft`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (draft.ok) own.draftYaml = ((await draft.json()) as { yaml_source: string }).yaml_source;
  const version = await post(`/api/movespecs/${own.movespecId}/versions`);
  own.versionId = version?.movespec_version_id as string | undefined;
  if (!own.versionId) return;
  await post(`/api/movespecs/${own.movespecId}/versions/${own.versionId}/release`);
  const session = await post("/api/detection/sessions", {
    project_id: own.project.projectId,
    movespec_id: own.movespecId,
  });
  own.sessionId = session?.session_id as string | undefined;
}
