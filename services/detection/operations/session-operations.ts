import { setTimeout as sleep } from "node:timers/promises";
import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { AuthService } from "@movement-detection/proto/auth/v1";
import type { AuthoringService } from "@movement-detection/proto/authoring/v1";
import {
  type CreateSessionRequest,
  type CreateSessionResponse,
  CreateSessionResponseSchema,
  SessionMode as ProtoMode,
  type Session,
  SessionSchema,
} from "@movement-detection/proto/detection/v1";
import { Code, errorInfo, Reason, serviceError } from "@movement-detection/shared/errors";
import { fingerprintOf, type IdempotencyStore } from "@movement-detection/shared/idempotency";
import { newId } from "@movement-detection/shared/ids";
import type { Logger } from "@movement-detection/shared/logging";
import { type Called, type Caller, onBehalfOf } from "@movement-detection/shared/security";
import type { DetectionConfig } from "../config.js";
import { isTerminal, type SessionDocument, type SessionMode } from "../domain/session-document.js";
import { isPastRetention, mayHaveExpired, retentionMs } from "../domain/session-retention.js";
import type { PeerClients } from "../lease/peer-clients.js";
import type { ReplicaPresence } from "../lease/replica-presence.js";
import { SessionReason } from "../reasons.js";
import type { SessionStore } from "../store/session-store.js";
import type { SpecStore } from "../store/spec-store.js";
import type { Attachments } from "../stream/attachments.js";
import { INPUT_SCHEMA_VERSION, OUTPUT_SCHEMA_VERSION } from "../stream/stream-messages.js";
import { type LiveProgress, sessionResource } from "../to-proto.js";
import { createRuntimeTokenMinter, type MintedToken } from "./runtime-token-minter.js";
import type { SessionSettlement } from "./session-settlement.js";
import type { SpecCache } from "./spec-cache.js";

/** Runtime contract majors this service speaks; the newest is the default. */
export const SUPPORTED_CONTRACT_MAJORS: readonly number[] = [1];

export interface SessionOperationsDeps {
  readonly config: Pick<
    DetectionConfig,
    "limits" | "tokens" | "rpcTimeoutMs" | "sessionRetentionDays"
  >;
  readonly store: SessionStore;
  readonly specStore: SpecStore;
  readonly specs: SpecCache;
  readonly idempotency: IdempotencyStore;
  readonly authoring: Client<typeof AuthoringService>;
  readonly auth: Client<typeof AuthService>;
  readonly attachments: Attachments;
  readonly presence: ReplicaPresence;
  readonly peers: PeerClients;
  readonly settlement: SessionSettlement;
  readonly logger: Logger;
  /** The clock reads judge the retention by (tests); Date.now by default. */
  readonly now?: () => number;
}

/** How long a peer may take to tell its live progress before GET falls back to the database. */
const LIVE_PROGRESS_TIMEOUT_MS = 500;

/** CreateSession, GetSession and FinalizeSession: admission, reads, the finalize transition. */
/** Unspecified is live (the API's default); a number outside the enum is refused. */
const KNOWN_MODES: ReadonlySet<number> = new Set([
  ProtoMode.UNSPECIFIED,
  ProtoMode.LIVE,
  ProtoMode.REPLAY,
]);

export function createSessionOperations(deps: SessionOperationsDeps) {
  const { config, store, logger } = deps;
  const { limits } = config;
  const now = deps.now ?? Date.now;
  const retention = retentionMs(config.sessionRetentionDays);
  const runtimeTokens = createRuntimeTokenMinter(deps);

  function callerProject(caller: Caller | undefined): string {
    if (!caller?.projectId) {
      throw serviceError(
        Code.Unauthenticated,
        Reason.tokenMissing,
        "a project-bound caller is required",
      );
    }
    return caller.projectId;
  }

  async function findVisible(
    caller: Caller | undefined,
    sessionId: string,
  ): Promise<SessionDocument> {
    const found = await store.findInProject(sessionId, callerProject(caller));
    const at = now();
    if (found && !isPastRetention(found, at, retention)) return found;
    // Past its retention, a session is gone even if the TTL monitor has not deleted it yet.
    if (found || mayHaveExpired(sessionId, at, retention)) {
      throw serviceError(
        Code.NotFound,
        SessionReason.expired,
        `session not found: sessions are deleted ${config.sessionRetentionDays} days after they end`,
        { session_id: sessionId, retention_days: config.sessionRetentionDays },
      );
    }
    throw serviceError(Code.NotFound, SessionReason.notFound, "session not found", {
      session_id: sessionId,
    });
  }

  /** The attached replica's counts, when a live one holds the session. */
  async function liveProgress(session: SessionDocument): Promise<LiveProgress | undefined> {
    const holder = session.lease;
    if (!holder || isTerminal(session.status)) return undefined;
    if (holder.owner === deps.presence.id) return deps.attachments.progress(session._id);
    if (!holder.owner_url) return undefined;
    try {
      const live = await deps.peers
        .of(holder.owner_url)
        .getLiveProgress({ sessionId: session._id }, { timeoutMs: LIVE_PROGRESS_TIMEOUT_MS });
      if (!live.attached) return undefined;
      return {
        acceptedFramesTotal: Number(live.acceptedFramesTotal),
        lastSeq: live.lastSeq === undefined ? -1 : Number(live.lastSeq),
      };
    } catch {
      return undefined;
    }
  }

  async function resource(session: SessionDocument): Promise<Session> {
    return sessionResource(session, await liveProgress(session));
  }

  /**
   * Creates the session document under `sessionId`: a fresh id, or the idempotency helper's
   * reserved one (`reserved`), which a retry after a crash mid-way may already have used.
   */
  async function admit(
    request: Called<CreateSessionRequest>,
    sessionId: string,
    mode: SessionMode,
    contract: number,
    reserved = false,
  ) {
    const existing = reserved ? await store.find(sessionId) : null;
    if (existing) return sessionResource(existing);
    const caller = request.caller;
    const resolved = await deps.authoring
      .resolveVersion(
        { movespecId: request.movespecId, movespecVersionId: request.movespecVersionId },
        { ...onBehalfOf(caller), timeoutMs: config.rpcTimeoutMs },
      )
      .catch((error: unknown) => {
        // The contract's reasons (MOVESPEC_NOT_FOUND, ...) pass through; a failure of the call
        // itself is this service's dependency problem, not the caller's.
        if (errorInfo(error).reason) throw error;
        logger.error({ err: error }, "ResolveVersion failed");
        throw serviceError(
          Code.Unavailable,
          Reason.dependencyUnavailable,
          "MoveSpecs cannot be resolved right now",
        );
      });
    const compiled = deps.specs.compile(resolved.movespecVersionId, resolved.yamlSource);
    if (!("spec" in compiled)) {
      throw serviceError(
        Code.FailedPrecondition,
        SessionReason.movespecUnloadable,
        "the MoveSpec version does not load in this runtime",
        { errors: compiled.errors.map((issue) => ({ code: issue.code, message: issue.message })) },
      );
    }
    await deps.specStore.save({
      _id: resolved.movespecVersionId,
      movespec_id: resolved.movespecId,
      yaml_source: resolved.yamlSource,
      content_hash: resolved.contentHash,
    });
    const now = new Date();
    const session: SessionDocument = {
      _id: sessionId,
      organization_id: caller.organizationId,
      project_id: caller.projectId,
      movespec_id: resolved.movespecId,
      movespec_version_id: resolved.movespecVersionId,
      mode,
      status: "created",
      contract_major: contract,
      created_at: now,
      attach_deadline: new Date(now.getTime() + limits.attachTimeoutMs),
      expires_at: new Date(now.getTime() + limits.maxDurationMs),
      last_activity_at: now,
      accepted_frames_total: 0,
      lease: null,
      lease_epoch: 0,
    };
    await store.insert(session);
    // Insert first, then count (this one included): concurrent admissions may both be refused,
    // never both admitted beyond the quota.
    const active = await store.countActive(caller.projectId);
    if (active > limits.maxActiveSessionsPerProject) {
      await store.remove(sessionId);
      throw serviceError(
        Code.ResourceExhausted,
        SessionReason.quotaExceeded,
        `the project already has ${limits.maxActiveSessionsPerProject} active sessions`,
        { limit: limits.maxActiveSessionsPerProject, retry_after_seconds: 5 },
      );
    }
    logger.info(
      { session_id: sessionId, mode, movespec_version_id: session.movespec_version_id },
      "session created",
    );
    return sessionResource(session);
  }

  return {
    async create(request: Called<CreateSessionRequest>): Promise<CreateSessionResponse> {
      const projectId = callerProject(request.caller);
      if (request.projectId !== projectId) {
        throw serviceError(
          Code.PermissionDenied,
          SessionReason.projectMismatch,
          "project_id is not the token's project",
          {
            field: "project_id",
          },
        );
      }
      const contract =
        request.contractMajor ?? SUPPORTED_CONTRACT_MAJORS[SUPPORTED_CONTRACT_MAJORS.length - 1];
      if (!SUPPORTED_CONTRACT_MAJORS.includes(contract)) {
        throw serviceError(
          Code.InvalidArgument,
          SessionReason.contractUnsupported,
          `contract_major ${contract} is not supported`,
          {
            field: "contract_major",
            supported: [...SUPPORTED_CONTRACT_MAJORS],
          },
        );
      }
      if (!request.movespecId && !request.movespecVersionId) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldRequired,
          "movespec_id or movespec_version_id is required",
          {
            field: "movespec_id",
          },
        );
      }
      if (!KNOWN_MODES.has(request.mode)) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "mode must be LIVE or REPLAY",
          {
            field: "mode",
          },
        );
      }
      const mode: SessionMode = request.mode === ProtoMode.REPLAY ? "replay" : "live";
      let session: Session;
      let token: MintedToken;
      if (request.idempotencyKey) {
        const fingerprint = fingerprintOf({
          project_id: projectId,
          mode,
          contract_major: contract,
          movespec_id: request.movespecId,
          movespec_version_id: request.movespecVersionId,
        });
        // The stored response leaves the runtime token out (no bearer credential at rest):
        // every answer, the first and the repeats, carries a freshly minted one.
        let minted: MintedToken | undefined;
        const outcome = await deps.idempotency.run(
          { scope: `${projectId}:CreateSession`, key: request.idempotencyKey, fingerprint },
          async (attempt) => {
            minted = await runtimeTokens.mint(request.caller, attempt.reservedId);
            return toJson(
              SessionSchema,
              await admit(request, attempt.reservedId, mode, contract, true),
            );
          },
        );
        session = fromJson(SessionSchema, outcome.value as JsonValue);
        token = minted ?? (await runtimeTokens.mint(request.caller, session.sessionId));
      } else {
        const sessionId = newId();
        token = await runtimeTokens.mint(request.caller, sessionId);
        session = await admit(request, sessionId, mode, contract);
      }
      return create(CreateSessionResponseSchema, {
        session,
        inputSchemaVersion: INPUT_SCHEMA_VERSION,
        outputSchemaVersion: OUTPUT_SCHEMA_VERSION,
        runtimeToken: token.runtimeToken,
        runtimeTokenExpiresAt: token.expiresAt,
      });
    },

    async get(caller: Caller | undefined, sessionId: string): Promise<Session> {
      return resource(await findVisible(caller, sessionId));
    },

    async finalize(caller: Caller | undefined, sessionId: string): Promise<Session> {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const session = await findVisible(caller, sessionId);
        if (isTerminal(session.status)) {
          throw serviceError(
            Code.FailedPrecondition,
            SessionReason.terminal,
            `the session is already ${session.status}`,
            {
              status: session.status,
            },
          );
        }
        if (session.status === "finalizing") return resource(session);
        // The lease as the transition left it, not as read above: a client that attached in
        // between holds the session now, and only its replica may complete it (a settle from
        // here would take the session from under it: 4409 with no other attachment).
        const finalizing = await deps.store.requestFinalize(sessionId, session.status, new Date());
        if (!finalizing) continue;
        const answer = await resource(finalizing);
        void completeFinalized(finalizing);
        return answer;
      }
      throw serviceError(
        Code.Aborted,
        Reason.concurrentModification,
        "the session changed meanwhile: retry",
        {
          retry_after_seconds: 1,
        },
      );
    },
  };

  /** Whether the replica holding `session` for a client has it attached and will complete it. */
  async function notifyHolder(session: SessionDocument): Promise<boolean> {
    const holder = session.lease;
    if (holder?.owner === deps.presence.id) return deps.attachments.notifyFinalize(session._id);
    if (!holder?.owner_url) return false;
    const answer = await deps.peers
      .of(holder.owner_url)
      .notifyFinalize({ sessionId: session._id }, { timeoutMs: config.rpcTimeoutMs });
    return answer.attached;
  }

  /**
   * The attached replica completes a finalized session; with none, this one does. A holder that
   * says it has no such stream may be attaching it right now (its lease write answered after
   * ours): it is asked again, briefly, rather than having the session settled from under it.
   */
  async function completeFinalized(finalizing: SessionDocument): Promise<void> {
    let session: SessionDocument | null = finalizing;
    for (const pause of NOTIFY_RETRY_MS) {
      try {
        if (pause > 0) {
          await sleep(pause);
          session = await store.find(finalizing._id);
        }
        if (!session || isTerminal(session.status)) return;
        if (session.lease?.purpose !== "attach") break;
        if (await notifyHolder(session)) return;
      } catch (error) {
        logger.warn(
          { err: (error as Error).message, session_id: finalizing._id },
          "NotifyFinalize failed",
        );
        break;
      }
    }
    deps.settlement.settleLater(finalizing._id, { yieldToAttachment: true });
  }
}

/** Pauses before each NotifyFinalize: an attach registers its stream as soon as its lease is taken. */
const NOTIFY_RETRY_MS = [0, 20, 50, 100, 250, 500, 1000];

export type SessionOperations = ReturnType<typeof createSessionOperations>;
