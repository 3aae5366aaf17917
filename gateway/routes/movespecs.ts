import type { CallOptions } from "@connectrpc/connect";
import type Router from "@koa/router";
import type { MoveSpec } from "@movement-detection/proto/authoring/v1";
import { ProjectSort, Visibility } from "@movement-detection/proto/authoring/v1";
import { Sort } from "@movement-detection/proto/catalogue/v1";
import {
  CreateMoveSpecRequest,
  compileChecker,
  ListMoveSpecsQuery,
  ListProjectMoveSpecsQuery,
  ListVersionsQuery,
  type MoveSpecPageJson,
  PAGE_LIMITS,
  type ProjectMoveSpecPageJson,
  type ReleasedSourceJson,
  ReplaceDraftRequest,
  type VersionPageJson,
} from "@movement-detection/shared/api";
import { Reason } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import { asUser, requireScope } from "../auth/principal.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayContext, GatewayState } from "../state.js";
import { contentETag, draftETag, type IfMatch, parseIfMatch } from "./movespecs/etag.js";
import {
  createListingMicroCache,
  DEFAULT_LISTING_TTL_MS,
} from "./movespecs/listing-micro-cache.js";
import {
  draftJson,
  moveSpecJson,
  projectMoveSpecJson,
  validationJson,
  versionJson,
} from "./movespecs/public-json.js";
import { readWithOptionalScope } from "./movespecs/read-access.js";
import { checkBody, idempotencyKeyOf, queryChecker } from "./request-checks.js";
import type { RouteDeps } from "./route-deps.js";
import { createRouter } from "./router.js";

/** The visibilities a client may ask for at creation (the schema admits only these). */
const VISIBILITY_FROM_JSON = { private: Visibility.PRIVATE, public: Visibility.PUBLIC } as const;
const SORT_FROM_JSON = { recent: Sort.RECENT, stars: Sort.STARS, name: Sort.NAME } as const;
const PROJECT_SORT_FROM_JSON = { recent: ProjectSort.RECENT, name: ProjectSort.NAME } as const;

/** How long a MoveSpec's answer waits for its star count (the catalogue answers in milliseconds). */
export const STAR_COUNT_TIMEOUT_MS = 1000;

const checkCreate = compileChecker(CreateMoveSpecRequest);
const checkReplaceDraft = compileChecker(ReplaceDraftRequest);
const listingQuery = queryChecker(ListMoveSpecsQuery);
const versionsQuery = queryChecker(ListVersionsQuery);
const projectListingQuery = queryChecker(ListProjectMoveSpecsQuery);

/**
 * The eleven MoveSpec routes (spec "Endpoints", contract "MoveSpecs") and a project's own listing
 * (docs/api.md): the public catalogue from the catalogue service, everything else from the
 * authoring service. See docs/movespecs.md.
 */
export function movespecRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = createRouter();
  const { authoring, catalogue } = deps.clients;
  const listings = createListingMicroCache({ ttlMs: DEFAULT_LISTING_TTL_MS, maxEntries: 2000 });

  /**
   * The star count shown with one MoveSpec; omitted if the catalogue cannot say right now, soon:
   * a read the authoring service answered does not wait the whole call deadline for it.
   */
  async function starCountOf(movespecId: string): Promise<number | undefined> {
    try {
      const { starCounts } = await catalogue.getStarCounts(
        { movespecIds: [movespecId] },
        { timeoutMs: STAR_COUNT_TIMEOUT_MS },
      );
      return starCounts[movespecId] ?? 0;
    } catch {
      return undefined;
    }
  }

  /**
   * The revision a conditional draft replacement expects: undefined for none, 0 for one that never
   * matches (revisions start at 1). With several of our ETags in If-Match, the one that is current
   * if any: the replacement stays conditional on it, so a change in between still fails it (412).
   */
  async function expectedRevision(
    movespecId: string,
    ifMatch: IfMatch,
    user: CallOptions,
  ): Promise<number | undefined> {
    switch (ifMatch.kind) {
      case "absent":
      case "any":
        return undefined;
      case "never":
        return 0;
      case "revisions": {
        if (ifMatch.revisions.length === 1) return ifMatch.revisions[0];
        const { draft } = await authoring.getDraft({ movespecId }, user);
        const current = draft?.revision ?? 0;
        return ifMatch.revisions.includes(current) ? current : 0;
      }
    }
  }

  /** The star counts of a page's MoveSpecs; empty if the catalogue cannot say right now, soon. */
  async function starCountsOf(movespecIds: string[]): Promise<Record<string, number>> {
    if (movespecIds.length === 0) return {};
    try {
      const { starCounts } = await catalogue.getStarCounts(
        { movespecIds },
        { timeoutMs: STAR_COUNT_TIMEOUT_MS },
      );
      return starCounts;
    } catch {
      return {};
    }
  }

  async function answerMoveSpec(ctx: GatewayContext, movespec: MoveSpec | undefined, status = 200) {
    if (!movespec) throw ApiError.internal(new Error("the service answered without a movespec"));
    const body = moveSpecJson(movespec, await starCountOf(movespec.movespecId));
    ctx.status = status;
    ctx.set("ETag", contentETag(body));
    ctx.body = body;
  }

  router.get("/api/movespecs", async (ctx) => {
    const query = listingQuery(new URLSearchParams(ctx.querystring));
    const page = pageOf(query);
    const request = {
      q: query.q ?? "",
      sort: SORT_FROM_JSON[query.sort ?? "recent"],
      limit: page.limit,
      offset: page.offset,
    };
    // The same page for everyone (public entries only), so one cache key per parameter set.
    const key = JSON.stringify([request.q, request.sort, request.limit, String(request.offset)]);
    const text = await listings.get(key, async () => {
      const listing = await catalogue.listMoveSpecs(request);
      return JSON.stringify({
        items: listing.items.map((entry) => moveSpecJson(entry)),
        has_more: listing.hasMore,
        limit: page.limit,
        offset: Number(page.offset),
        total: listing.total,
      } satisfies MoveSpecPageJson);
    });
    ctx.type = "application/json";
    ctx.body = text;
  });

  // A project's own MoveSpecs, whatever their visibility: the catalogue lists public ones only.
  router.get("/api/projects/:project_id/movespecs", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:read");
    const projectId = ctx.params.project_id;
    // Another project, existing or not, is not found: as GET /api/projects/{id} answers it.
    if (!isUuid(projectId) || projectId !== principal.projectId) {
      throw new ApiError("not_found", Reason.projectNotFound, "project not found");
    }
    const query = projectListingQuery(new URLSearchParams(ctx.querystring));
    const page = pageOf(query);
    const listing = await authoring.listProjectMoveSpecs(
      {
        projectId,
        q: query.q ?? "",
        sort: PROJECT_SORT_FROM_JSON[query.sort ?? "recent"],
        limit: page.limit,
        offset: page.offset,
      },
      asUser(principal),
    );
    const stars = await starCountsOf(
      listing.items.flatMap((item) => item.movespec?.movespecId ?? []),
    );
    ctx.body = {
      items: listing.items.map((item) => projectMoveSpecJson(item, stars)),
      has_more: listing.hasMore,
      limit: page.limit,
      offset: Number(page.offset),
      total: listing.total,
    } satisfies ProjectMoveSpecPageJson;
  });

  router.post("/api/movespecs", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:write");
    const body = checkBody(ctx, checkCreate);
    const created = await authoring.createMoveSpec(
      {
        projectId: body.project_id,
        name: body.name,
        description: body.description,
        visibility: body.visibility
          ? VISIBILITY_FROM_JSON[body.visibility]
          : Visibility.UNSPECIFIED,
        idempotencyKey: idempotencyKeyOf(ctx),
      },
      asUser(principal),
    );
    ctx.set("Location", `/api/movespecs/${created.movespec?.movespecId}`);
    const json = moveSpecJson(created.movespec as MoveSpec, 0);
    ctx.status = 201;
    ctx.set("ETag", contentETag(json));
    ctx.body = json;
  });

  router.get("/api/movespecs/:movespecId", async (ctx) => {
    const { movespec } = await readWithOptionalScope(ctx, (user) =>
      authoring.getMoveSpec({ movespecId: ctx.params.movespecId }, user),
    );
    await answerMoveSpec(ctx, movespec);
  });

  router.get("/api/movespecs/:movespecId/draft", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:read");
    const { draft } = await authoring.getDraft(
      {
        movespecId: ctx.params.movespecId,
      },
      asUser(principal),
    );
    if (!draft) throw ApiError.internal(new Error("the service answered without a draft"));
    ctx.set("ETag", draftETag(draft.revision));
    ctx.body = draftJson(draft);
  });

  router.put("/api/movespecs/:movespecId/draft", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:write");
    const yamlSource = checkBody(ctx, checkReplaceDraft).yaml_source;
    const ifMatch = parseIfMatch(ctx.get("if-match"));
    const { draft } = await authoring.replaceDraft(
      {
        movespecId: ctx.params.movespecId,
        yamlSource,
        ifRevision: await expectedRevision(ctx.params.movespecId, ifMatch, asUser(principal)),
      },
      asUser(principal),
    );
    if (!draft) throw ApiError.internal(new Error("the service answered without a draft"));
    ctx.set("ETag", draftETag(draft.revision));
    ctx.body = draftJson(draft);
  });

  router.post("/api/movespecs/:movespecId/draft/validate", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:write");
    const result = await authoring.validateDraft(
      {
        movespecId: ctx.params.movespecId,
      },
      asUser(principal),
    );
    ctx.body = validationJson(result);
  });

  router.get("/api/movespecs/:movespecId/versions", async (ctx) => {
    const page = pageOf(versionsQuery(new URLSearchParams(ctx.querystring)));
    const listing = await readWithOptionalScope(ctx, (user) =>
      authoring.listVersions(
        { movespecId: ctx.params.movespecId, limit: page.limit, offset: page.offset },
        user,
      ),
    );
    ctx.body = {
      items: listing.items.map(versionJson),
      has_more: listing.hasMore,
      limit: page.limit,
      offset: Number(page.offset),
      total: listing.total,
    } satisfies VersionPageJson;
  });

  router.post("/api/movespecs/:movespecId/versions", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:write");
    const { version } = await authoring.createVersion(
      {
        movespecId: ctx.params.movespecId,
        idempotencyKey: idempotencyKeyOf(ctx),
      },
      asUser(principal),
    );
    if (!version) throw ApiError.internal(new Error("the service answered without a version"));
    ctx.status = 201;
    ctx.set(
      "Location",
      `/api/movespecs/${version.movespecId}/versions/${version.movespecVersionId}`,
    );
    ctx.body = versionJson(version);
  });

  router.get("/api/movespecs/:movespecId/versions/:versionId", async (ctx) => {
    const { version } = await readWithOptionalScope(ctx, (user) =>
      authoring.getVersion(
        { movespecId: ctx.params.movespecId, movespecVersionId: ctx.params.versionId },
        user,
      ),
    );
    if (!version) throw ApiError.internal(new Error("the service answered without a version"));
    ctx.body = versionJson(version);
  });

  router.post("/api/movespecs/:movespecId/versions/:versionId/release", async (ctx) => {
    const principal = requireScope(ctx, "movespecs:write");
    const { movespec } = await authoring.releaseVersion(
      {
        movespecId: ctx.params.movespecId,
        movespecVersionId: ctx.params.versionId,
      },
      asUser(principal),
    );
    await answerMoveSpec(ctx, movespec);
  });

  router.get("/api/movespecs/:movespecId/released-source", async (ctx) => {
    const source = await readWithOptionalScope(ctx, (user) =>
      authoring.getReleasedSource({ movespecId: ctx.params.movespecId }, user),
    );
    ctx.body = {
      movespec_id: source.movespecId,
      movespec_version_id: source.movespecVersionId,
      version_number: source.versionNumber,
      yaml_source: source.yamlSource,
    } satisfies ReleasedSourceJson;
  });

  return router;
}

/** The page a listing asks for, with the contract's defaults (offset as the int64 it is). */
function pageOf(query: { limit?: number; offset?: number }): { limit: number; offset: bigint } {
  return {
    limit: query.limit ?? PAGE_LIMITS.limitDefault,
    offset: BigInt(query.offset ?? 0),
  };
}
