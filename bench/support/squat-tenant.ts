import type { Stack } from "../../deploy/local/stack.js";
import {
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
} from "../../test/detection/support/session-api.js";
import { api } from "../../test/movespecs/support/api.js";
import { createProjectWithKey, mintAccessToken } from "../../test/support/auth.js";

/**
 * What a benchmark on a stack of its own (startStack) streams to: a project with an API key and
 * an access token, and the squat example MoveSpec published (a draft, version 1, released).
 */
export async function squatTenant(
  stack: Stack,
): Promise<{ tenant: TestTenant; token: string; projectId: string; movespecId: string }> {
  const system = { ...stack, logs: [], logsOf: () => [] };
  const project = await createProjectWithKey(system);
  const token = await mintAccessToken(system, { apiKey: project.apiKey });
  const tenant: TestTenant = {
    ...project,
    token,
    gatewayUrl: stack.gatewayUrl,
    call: (method, path, body, headers) =>
      api(stack.gatewayUrl, method, path, { token, body, headers }),
  };
  const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
  return { tenant, token, projectId: project.projectId, movespecId };
}
