import type Router from "@koa/router";
import { Reason } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import { asUser, requirePrincipal } from "../auth/principal.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";
import { createRouter } from "./router.js";

/**
 * GET /api/projects/{project_id}: any valid token bound to that project; every other project,
 * existing or not, is 404 PROJECT_NOT_FOUND.
 */
export function projectRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = createRouter();
  router.get("/api/projects/:project_id", async (ctx) => {
    const principal = requirePrincipal(ctx);
    const projectId = ctx.params.project_id;
    if (!isUuid(projectId) || projectId !== principal.projectId) {
      throw new ApiError("not_found", Reason.projectNotFound, "project not found");
    }
    const { project } = await deps.clients.auth.getProject({ projectId }, asUser(principal));
    if (!project) throw ApiError.internal(new Error("GetProject answered without a project"));
    ctx.body = {
      project_id: project.projectId,
      organization_id: project.organizationId,
      name: project.name,
      slug: project.slug,
      created_at: project.createdAt,
      ...(project.archivedAt ? { archived_at: project.archivedAt } : {}),
    };
  });
  return router;
}
