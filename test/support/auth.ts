/**
 * Auth helpers for black-box tests of any area. Everything goes through real parts: projects and
 * keys are created with the auth service's admin gRPC (as the admin tool does), tokens are minted
 * through the public route POST /api/auth/access-tokens.
 *
 *   import { startTestSystem } from "./system.js";
 *   import { authHeader, createProjectWithKey, mintAccessToken } from "./auth.js";
 *
 *   const project = await createProjectWithKey(system, { scopes: ["movespecs:write"] });
 *   const token = await mintAccessToken(system, { apiKey: project.apiKey });
 *   await fetch(`${system.gatewayUrl}/api/movespecs`, {
 *     method: "POST",
 *     headers: { ...authHeader(token), "content-type": "application/json" },
 *     body: JSON.stringify({ name: "squat", project_id: project.projectId }),
 *   });
 *
 *   // or both at once (a fresh project, a key with every scope, a token):
 *   const { token, projectId } = await createProjectWithToken(system);
 *
 *   // a runtime token for a session (detection tests), minted over gRPC:
 *   const runtime = await mintRuntimeToken(system, { sessionId, organizationId, projectId });
 *
 * - createProjectWithKey(system, { scopes?, name?, organizationId? }) -> TestProject
 *   (a new organization unless `organizationId` is given; `scopes` default: every scope)
 * - createServiceAccount(system, { projectId, scopes?, name? }) -> { serviceAccountId, secret }
 * - mintAccessToken(system, { apiKey, scopes?, projectId? }) -> string (throws on non-200)
 * - mintTokenResponse(system, body) -> the raw fetch Response of the public route
 * - createProjectWithToken(system, { scopes?, name? }) -> TestProject & { token }
 * - mintRuntimeToken(system, { sessionId, organizationId, projectId, ttlSeconds? }) -> { runtimeToken, expiresAt, projectChecked }
 * - authHeader(token) -> { authorization: "Bearer <token>" }
 * - authAdminClient(system) -> the typed auth.v1.AuthService gRPC client, calling as the operator
 *   (the admin tool's certificate); one per system, reused
 * - mintRuntimeToken calls as the detection workload (the only one allowed to)
 */
import type { Client } from "@connectrpc/connect";
import { AuthService } from "@movement-detection/proto/auth/v1";
import type { Scope } from "@movement-detection/shared/tokens";
import { type WorkloadTestSystem, workloadClient } from "./workloads.js";

/** The part of a test system these helpers need (TestSystem satisfies it). */
export interface AuthTestSystem extends WorkloadTestSystem {
  readonly gatewayUrl: string;
}

export interface TestProject {
  readonly organizationId: string;
  readonly projectId: string;
  readonly projectSlug: string;
  /** The `msk_...` secret: use it as `api_key`. */
  readonly apiKey: string;
  readonly apiKeyId: string;
  readonly scopes: readonly Scope[];
}

const clients = new Map<string, Client<typeof AuthService>>();
let counter = 0;

/**
 * The auth service's gRPC client for this system, as the operator (cached per address and
 * certificate directory: a later system can get a stopped one's port, never its CA).
 */
export function authAdminClient(system: AuthTestSystem): Client<typeof AuthService> {
  const key = `${system.services.auth.grpcUrl} ${system.pki?.tlsDirOf("operator") ?? "h2c"}`;
  let client = clients.get(key);
  if (!client) {
    client = workloadClient(system, AuthService, "operator");
    clients.set(key, client);
  }
  return client;
}

export async function createProjectWithKey(
  system: AuthTestSystem,
  options: { scopes?: readonly Scope[]; name?: string; organizationId?: string } = {},
): Promise<TestProject> {
  const client = authAdminClient(system);
  counter += 1;
  const name = options.name ?? `test project ${counter} ${Date.now().toString(36)}`;
  const organizationId =
    options.organizationId ??
    (await client.createOrganization({ name: `test org for ${name}` })).organization
      ?.organizationId;
  if (!organizationId) throw new Error("CreateOrganization returned no organization");
  const { project } = await client.createProject({ organizationId, name });
  if (!project) throw new Error("CreateProject returned no project");
  const created = await client.createApiKey({
    projectId: project.projectId,
    name: `${name} key`,
    scopes: [...(options.scopes ?? [])],
  });
  if (!created.apiKey) throw new Error("CreateApiKey returned no key");
  return {
    organizationId,
    projectId: project.projectId,
    projectSlug: project.slug,
    apiKey: created.secret,
    apiKeyId: created.apiKey.credentialId,
    scopes: created.apiKey.scopes as Scope[],
  };
}

export async function createServiceAccount(
  system: AuthTestSystem,
  options: { projectId: string; scopes?: readonly Scope[]; name?: string },
): Promise<{ serviceAccountId: string; secret: string }> {
  const created = await authAdminClient(system).createServiceAccount({
    projectId: options.projectId,
    name: options.name ?? "test service account",
    scopes: [...(options.scopes ?? [])],
  });
  if (!created.serviceAccount) throw new Error("CreateServiceAccount returned no account");
  return { serviceAccountId: created.serviceAccount.credentialId, secret: created.secret };
}

/** POST /api/auth/access-tokens with any body; the raw response. */
export function mintTokenResponse(system: AuthTestSystem, body: unknown): Promise<Response> {
  return fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export async function mintAccessToken(
  system: AuthTestSystem,
  options: { apiKey: string; scopes?: readonly Scope[]; projectId?: string },
): Promise<string> {
  const response = await mintTokenResponse(system, {
    api_key: options.apiKey,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.projectId ? { project_id: options.projectId } : {}),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) {
    throw new Error(`token exchange failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

export async function createProjectWithToken(
  system: AuthTestSystem,
  options: { scopes?: readonly Scope[]; name?: string; organizationId?: string } = {},
): Promise<TestProject & { token: string }> {
  const project = await createProjectWithKey(system, options);
  return { ...project, token: await mintAccessToken(system, { apiKey: project.apiKey }) };
}

export async function mintRuntimeToken(
  system: AuthTestSystem,
  options: { sessionId: string; organizationId: string; projectId: string; ttlSeconds?: number },
): Promise<{ runtimeToken: string; expiresAt: string; projectChecked: boolean }> {
  return workloadClient(system, AuthService, "detection").mintRuntimeToken({
    sessionId: options.sessionId,
    organizationId: options.organizationId,
    projectId: options.projectId,
    ttlSeconds: options.ttlSeconds ?? 0,
  });
}

export function authHeader(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
