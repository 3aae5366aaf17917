import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import Router from "@koa/router";
import {
  type Session,
  SessionMode,
  SessionStatus,
} from "../../proto/gen/detection/v1/detection_pb.js";
import { Reason, SessionReason } from "../../services/shared/errors/reasons.js";
import { isUuid } from "../../services/shared/ids/uuid-v7.js";
import { asUser, requireScope } from "../auth/principal.js";
import { ApiError } from "../errors/api-error.js";
import { createDetectionReplicas } from "../realtime/detection-replicas.js";
import type { GatewayContext, GatewayState } from "../state.js";
import { optionalString, requiredString } from "./movespecs/body-fields.js";
import type { RouteDeps } from "./route-deps.js";

type Json = Record<string, unknown>;

/** A Map, not an object: `"mode": "toString"` must not find Object.prototype's members. */
const MODES: ReadonlyMap<string, SessionMode> = new Map([
  ["live", SessionMode.LIVE],
  ["replay", SessionMode.REPLAY],
]);

const STATUS_JSON: Readonly<Record<SessionStatus, string>> = {
  [SessionStatus.UNSPECIFIED]: "created",
  [SessionStatus.CREATED]: "created",
  [SessionStatus.STREAMING]: "streaming",
  [SessionStatus.FINALIZING]: "finalizing",
  [SessionStatus.COMPLETED]: "completed",
  [SessionStatus.FAILED]: "failed",
  [SessionStatus.CANCELLED]: "cancelled",
};

const INT32_MAX = 2 ** 31 - 1;

/**
 * The detection session routes (spec "Endpoints", contract "Detection sessions"): shape checks
 * here, admission and the lifecycle in the detection service (any replica).
 */
export function sessionRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const replicas = createDetectionReplicas(deps.clients.detection);

  const call = replicas.call;

  router.post("/api/detection/sessions", async (ctx) => {
    const principal = requireScope(ctx, "sessions:write");
    const body = ctx.state.body;
    const projectId = requiredString(body, "project_id");
    if (!isUuid(projectId)) throw fieldInvalid("project_id", "project_id must be a UUID");
    if (projectId !== principal.projectId) {
      throw new ApiError(
        "permission_denied",
        Reason.projectMismatch,
        "project_id is not the token's project",
        {
          field: "project_id",
        },
      );
    }
    const modeName = optionalString(body, "mode") ?? "live";
    const mode = MODES.get(modeName);
    if (mode === undefined) throw fieldInvalid("mode", "mode must be live or replay");
    const movespecId = optionalUuid(body, "movespec_id");
    const movespecVersionId = optionalUuid(body, "movespec_version_id");
    const contract = body?.contract_major;
    if (contract !== undefined && contract !== null && !Number.isInteger(contract)) {
      throw fieldInvalid("contract_major", "contract_major must be an integer");
    }
    const contractMajor =
      typeof contract === "number" ? (Math.abs(contract) <= INT32_MAX ? contract : -1) : undefined;
    const idempotencyKey = ctx.get("idempotency-key") || undefined;
    const created = await call((client) =>
      client.createSession(
        { projectId, mode, contractMajor, movespecId, movespecVersionId, idempotencyKey },
        asUser(principal),
      ),
    );
    const session = created.session;
    if (!session) throw ApiError.internal(new Error("the service answered without a session"));
    ctx.status = 201;
    ctx.body = {
      session_id: session.sessionId,
      project_id: session.projectId,
      resolved_movespec_version_id: session.resolvedMovespecVersionId,
      mode: modeJson(session.mode),
      status: STATUS_JSON[session.status],
      input_schema_version: created.inputSchemaVersion,
      output_schema_version: created.outputSchemaVersion,
      runtime_token: created.runtimeToken,
      stream_url: streamUrl(ctx, deps.config.publicBaseUrl, session.sessionId),
    } satisfies Json;
  });

  router.get("/api/detection/sessions/:sessionId", async (ctx) => {
    const principal = requireScope(ctx, "sessions:read");
    const sessionId = sessionIdParam(ctx);
    const { session } = await call((client) => client.getSession({ sessionId }, asUser(principal)));
    ctx.body = sessionJson(session);
  });

  router.post("/api/detection/sessions/:sessionId/finalize", async (ctx) => {
    const principal = requireScope(ctx, "sessions:write");
    const sessionId = sessionIdParam(ctx);
    const { session } = await call((client) =>
      client.finalizeSession({ sessionId }, asUser(principal)),
    );
    ctx.body = sessionJson(session);
  });

  return router;
}

function fieldInvalid(field: string, message: string): ApiError {
  return new ApiError("invalid_argument", Reason.fieldInvalid, message, { field });
}

function optionalUuid(body: Json | undefined, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value !== undefined && !isUuid(value)) throw fieldInvalid(field, `${field} must be a UUID`);
  return value;
}

/** Ids that are not UUIDs answer exactly like unknown ones. */
function sessionIdParam(ctx: GatewayContext): string {
  const sessionId = ctx.params.sessionId;
  if (!isUuid(sessionId))
    throw new ApiError("not_found", SessionReason.notFound, "session not found");
  return sessionId;
}

function modeJson(mode: SessionMode): string {
  return mode === SessionMode.REPLAY ? "replay" : "live";
}

function iso(timestamp: Timestamp | undefined): string | undefined {
  return timestamp ? timestampDate(timestamp).toISOString() : undefined;
}

/** The public detection session resource (absent optional fields omitted). */
export function sessionJson(session: Session | undefined): Json {
  if (!session) throw ApiError.internal(new Error("the service answered without a session"));
  const json: Json = {
    session_id: session.sessionId,
    organization_id: session.organizationId,
    project_id: session.projectId,
    resolved_movespec_version_id: session.resolvedMovespecVersionId,
    mode: modeJson(session.mode),
    status: STATUS_JSON[session.status],
    accepted_frames_total: Number(session.acceptedFramesTotal),
    started_at: iso(session.startedAt),
    ended_at: iso(session.endedAt),
    error_code: session.errorCode,
    error_message: session.errorMessage,
    terminal_outcome: session.terminalOutcome,
  };
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key];
  return json;
}

/**
 * `{public_base}/api/detection/sessions/{id}/stream` with ws:// or wss://. Without
 * PUBLIC_BASE_URL the base is the address the client used to reach the gateway.
 */
function streamUrl(
  ctx: GatewayContext,
  publicBaseUrl: string | undefined,
  sessionId: string,
): string {
  const base = new URL(publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`);
  base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  const prefix = base.pathname.replace(/\/+$/, "");
  return `${base.origin}${prefix}/api/detection/sessions/${sessionId}/stream`;
}
