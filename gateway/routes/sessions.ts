import type Router from "@koa/router";
import { type Session, SessionMode, SessionStatus } from "@movement-detection/proto/detection/v1";
import {
  CreateSessionRequest,
  compileChecker,
  type SessionCreatedJson,
  type SessionJson,
} from "@movement-detection/shared/api";
import { GatewayReason, Reason, SessionReason } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import { createAdmissionGate, type Leave } from "@movement-detection/shared/process";
import { streamPath } from "@movement-detection/shared/realtime";
import { asUser, requireScope } from "../auth/principal.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayContext, GatewayState } from "../state.js";
import { createDetectionReplicas } from "./detection-replicas.js";
import { checkBody, idempotencyKeyOf } from "./request-checks.js";
import type { RouteDeps } from "./route-deps.js";
import { createRouter } from "./router.js";
import { iso } from "./timestamps.js";

/** The modes the schema admits. */
const MODES = { live: SessionMode.LIVE, replay: SessionMode.REPLAY } as const;

const checkCreate = compileChecker(CreateSessionRequest);

const STATUS_JSON: Readonly<Record<SessionStatus, SessionJson["status"]>> = {
  [SessionStatus.UNSPECIFIED]: "created",
  [SessionStatus.CREATED]: "created",
  [SessionStatus.STREAMING]: "streaming",
  [SessionStatus.FINALIZING]: "finalizing",
  [SessionStatus.COMPLETED]: "completed",
  [SessionStatus.FAILED]: "failed",
  [SessionStatus.CANCELLED]: "cancelled",
};

/**
 * The detection session routes (spec "Endpoints", contract "Detection sessions"): shape checks
 * here, admission and the lifecycle in the detection service (any replica).
 */
export function sessionRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = createRouter();
  const replicas = createDetectionReplicas(
    deps.clients.detection,
    deps.config.detectionServiceUrls,
    { clientAt: deps.clients.detectionAt, logger: deps.logger },
  );

  const call = replicas.call;
  // A creation is calls across four processes and store writes (about 13 ms of CPU): 30 at once
  // saturate a small machine for a second and every live session's frames are late together.
  // Run one at a time, the frames go in between (bench/detection/README.md, "Admission paced").
  const creations = createAdmissionGate({
    inFlight: deps.config.sessionCreationsInFlight,
    queueLimit: deps.config.sessionCreationsQueued,
    holdLimitMs: PLACE_HELD_MS,
  });

  /**
   * This request's place among the gateway's creations. Refused when the queue is full, after
   * SESSION_CREATIONS_WAIT_MS without a place, or once the client has gone (nothing is created
   * for a client that will never read the answer). A place held PLACE_HELD_MS goes to the next
   * creation (a replica that does not answer is waited for, until the next one is tried, without
   * holding the queue).
   */
  async function turnToCreate(ctx: GatewayContext): Promise<Leave> {
    const { sessionCreationsQueued, sessionCreationsWaitMs } = deps.config;
    if (ctx.req.socket.destroyed) throw clientLeft();
    const clientGone = new AbortController();
    const onClose = () => clientGone.abort();
    ctx.res.once("close", onClose);
    const entered = creations.enter(
      AbortSignal.any([clientGone.signal, AbortSignal.timeout(sessionCreationsWaitMs)]),
    );
    try {
      if (!entered)
        throw creationsBusy(`${sessionCreationsQueued} session creations are waiting already`);
      return await entered.catch(() => {
        if (clientGone.signal.aborted) throw clientLeft();
        throw creationsBusy(`no place for a session creation within ${sessionCreationsWaitMs} ms`);
      });
    } finally {
      ctx.res.off("close", onClose);
    }
  }

  router.post("/api/detection/sessions", async (ctx) => {
    const principal = requireScope(ctx, "sessions:write");
    const body = checkBody(ctx, checkCreate);
    const projectId = body.project_id;
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
    const mode = MODES[body.mode ?? "live"];
    const contractMajor = body.contract_major;
    // Before the session exists: a client must not be left without the URL of one it created.
    const streamBase = streamBaseOf(ctx, deps.config.publicBaseUrl);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const leave = await turnToCreate(ctx);
    const created = await call((client) =>
      client.createSession(
        {
          projectId,
          mode,
          contractMajor,
          movespecId: body.movespec_id,
          movespecVersionId: body.movespec_version_id,
          idempotencyKey,
        },
        asUser(principal),
      ),
    ).finally(leave);
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
      stream_url: `${streamBase}${streamPath(session.sessionId)}`,
    } satisfies SessionCreatedJson;
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

/** How long one creation may hold its place (the gate's holdLimitMs). */
const PLACE_HELD_MS = 1000;

/** Nobody reads this answer; its message tells the access log why. */
function clientLeft(): ApiError {
  return new ApiError(
    "unavailable",
    GatewayReason.sessionCreationsBusy,
    "the client left while its session creation waited: nothing created",
  );
}

function creationsBusy(why: string): ApiError {
  return new ApiError(
    "unavailable",
    GatewayReason.sessionCreationsBusy,
    `${why}: retry`,
    { retry_after_seconds: 1 },
    { "retry-after": "1" },
  );
}

/** Ids that are not UUIDs answer exactly like unknown ones. */
function sessionIdParam(ctx: GatewayContext): string {
  const sessionId = ctx.params.sessionId;
  if (!isUuid(sessionId)) {
    throw new ApiError("not_found", SessionReason.notFound, "session not found", {
      session_id: sessionId,
    });
  }
  return sessionId;
}

function modeJson(mode: SessionMode): "live" | "replay" {
  return mode === SessionMode.REPLAY ? "replay" : "live";
}

/** The public detection session resource (absent optional fields omitted). */
export function sessionJson(session: Session | undefined): SessionJson {
  if (!session) throw ApiError.internal(new Error("the service answered without a session"));
  const json: SessionJson = {
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
  const members = json as Record<string, unknown>;
  for (const key of Object.keys(members)) if (members[key] === undefined) delete members[key];
  return json;
}

/**
 * The base of `{base}/api/detection/sessions/{id}/stream`, with ws:// or wss://. Without
 * PUBLIC_BASE_URL it is the address the client used to reach the gateway; a request without a
 * Host (HTTP/1.0) then has none to offer.
 */
function streamBaseOf(ctx: GatewayContext, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl === undefined && ctx.host === "") {
    throw new ApiError(
      "invalid_argument",
      GatewayReason.malformedRequest,
      "a Host header is required to answer with the session's stream URL",
    );
  }
  const base = new URL(publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`);
  base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  return `${base.origin}${base.pathname.replace(/\/+$/, "")}`;
}
