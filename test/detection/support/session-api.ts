/**
 * Black-box helpers for detection tests: a project with a token, reference MoveSpecs published
 * through the public routes, sessions created and read through the gateway.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "@movement-detection/shared/tokens";
import { EXAMPLES } from "../../movespec/support/recordings.js";
import { type ApiResponse, api, type JsonBody } from "../../movespecs/support/api.js";
import { createProjectWithToken, type TestProject } from "../../support/auth.js";
import { eventually } from "../../support/eventually.js";
import type { TestSystem } from "../../support/system.js";

export type { ApiResponse, JsonBody };

export interface TestTenant extends TestProject {
  readonly token: string;
  readonly gatewayUrl: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse>;
}

export async function createTenant(
  system: TestSystem,
  options: { scopes?: readonly Scope[] } = {},
): Promise<TestTenant> {
  const project = await createProjectWithToken(system, options);
  return {
    ...project,
    gatewayUrl: system.gatewayUrl,
    call: (method, path, body, headers) =>
      api(system.gatewayUrl, method, path, { token: project.token, body, headers }),
  };
}

export function exampleYaml(name: string): string {
  return readFileSync(join(EXAMPLES, `${name}.yaml`), "utf8");
}

function expectStatus(response: ApiResponse, status: number, what: string): JsonBody {
  if (response.status !== status) {
    throw new Error(
      `${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  return response.body;
}

export interface PublishedMoveSpec {
  readonly movespecId: string;
  readonly versionId: string;
}

/** Creates a MoveSpec with `yaml`, freezes version 1 and (unless told not to) releases it. */
export async function publishMoveSpec(
  tenant: TestTenant,
  yaml: string,
  options: { release?: boolean; visibility?: "public" | "private"; name?: string } = {},
): Promise<PublishedMoveSpec> {
  const created = expectStatus(
    await tenant.call("POST", "/api/movespecs", {
      name: options.name ?? "test spec",
      project_id: tenant.projectId,
      visibility: options.visibility,
    }),
    201,
    "create MoveSpec",
  );
  const movespecId = created.movespec_id as string;
  expectStatus(
    await tenant.call("PUT", `/api/movespecs/${movespecId}/draft`, { yaml_source: yaml }),
    200,
    "draft",
  );
  const version = expectStatus(
    await tenant.call("POST", `/api/movespecs/${movespecId}/versions`),
    201,
    "version",
  );
  const versionId = version.movespec_version_id as string;
  if (options.release !== false) {
    expectStatus(
      await tenant.call("POST", `/api/movespecs/${movespecId}/versions/${versionId}/release`),
      200,
      "release",
    );
  }
  return { movespecId, versionId };
}

export interface CreatedSession {
  readonly session_id: string;
  readonly runtime_token: string;
  readonly stream_url: string;
  readonly [field: string]: unknown;
}

export async function createSession(
  tenant: TestTenant,
  body: Record<string, unknown>,
): Promise<CreatedSession> {
  return expectStatus(
    await tenant.call("POST", "/api/detection/sessions", { project_id: tenant.projectId, ...body }),
    201,
    "create session",
  ) as CreatedSession;
}

export async function getSession(tenant: TestTenant, sessionId: string): Promise<JsonBody> {
  return expectStatus(
    await tenant.call("GET", `/api/detection/sessions/${sessionId}`),
    200,
    "get session",
  );
}

/** Polls GET until the session has `status` (or fails after `timeoutMs`). */
export async function waitForStatus(
  tenant: TestTenant,
  sessionId: string,
  status: string,
  timeoutMs = 10_000,
): Promise<JsonBody> {
  let last: JsonBody = {};
  await eventually(async () => {
    last = await getSession(tenant, sessionId);
    return last.status === status;
  }, timeoutMs).catch(() => {
    throw new Error(
      `session ${sessionId} is ${last.status}, not ${status}: ${JSON.stringify(last)}`,
    );
  });
  return last;
}
