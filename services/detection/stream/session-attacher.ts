import {
  type CompiledSpec,
  createEngine,
  type Engine,
  restoreEngine,
  supportsTopology,
  type TopologyName,
} from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import type { AdmissionGate } from "@movement-detection/shared/process";
import type { RuntimeClaims } from "@movement-detection/shared/tokens";
import type { DetectionConfig } from "../config.js";
import { isTerminal, type SessionDocument } from "../domain/session-document.js";
import { dueOutcome } from "../domain/session-timeouts.js";
import type { AttachmentLeases } from "../lease/attachment-lease.js";
import type { SpecCache } from "../operations/spec-cache.js";
import { CloseCode, EndReason, StreamError } from "../reasons.js";
import type { RecordStore } from "../store/record-store.js";
import type { SessionStore } from "../store/session-store.js";
import type { Attachments } from "./attachments.js";
import type { Hello } from "./hello-message.js";
import { OwnedSession } from "./owned-session.js";
import { createProgressBatch, progressBatchWaitMs } from "./progress-batch.js";
import { endMessage, readyMessage } from "./stream-messages.js";
import type { StreamMetrics } from "./stream-metrics.js";
import type { StreamSink } from "./stream-sink.js";
import { TurnQueue } from "./turn-queue.js";

/** How an attach ended when it did not produce a session: what to tell the client. */
export interface AttachRefusal {
  readonly code: string;
  readonly message: string;
  readonly closeCode: number;
  /** Sent before the error (a terminal session's `end`). */
  readonly end?: string;
}

export type AttachResult = { ok: true; session: OwnedSession } | ({ ok: false } & AttachRefusal);

export interface SessionAttacherDeps {
  readonly config: Pick<DetectionConfig, "limits" | "durability">;
  readonly store: SessionStore;
  readonly records: RecordStore;
  readonly specs: SpecCache;
  readonly leases: AttachmentLeases;
  readonly attachments: Attachments;
  /** The replica's session ends, one at a time (./session-lifecycle.ts). */
  readonly ends: AdmissionGate;
  readonly logger: Logger;
  readonly metrics: StreamMetrics;
  /** Ends the session now if a deadline passed (the sweeper's work, done when it is needed). */
  readonly settle: (sessionId: string) => Promise<void>;
  readonly settleLater: (sessionId: string) => void;
}

/**
 * Turns an authenticated hello into an attachment: the session must be this token's, not
 * terminal, on a topology its MoveSpec runs on; the lease is taken (the newer attachment wins),
 * the engine restored from the last checkpoint, and `ready` sent with the resume point.
 */
export function createSessionAttacher(deps: SessionAttacherDeps) {
  const { store, specs, leases, attachments, logger, config } = deps;
  const turns = new TurnQueue();
  const waitMs = progressBatchWaitMs(config.durability.checkpointIntervalMs);
  const progressBatch = { write: createProgressBatch(store, deps.records, waitMs), waitMs };

  const refuse = (
    code: string,
    message: string,
    closeCode: number,
    end?: string,
  ): AttachResult => ({
    ok: false,
    code,
    message,
    closeCode,
    end,
  });

  const endOf = (session: SessionDocument) =>
    endMessage({
      status: session.status,
      acceptedFramesTotal: session.accepted_frames_total,
      terminalOutcome: session.terminal_outcome,
      errorCode: session.error_code,
      errorMessage: session.error_message,
    });

  const terminal = (session: SessionDocument) =>
    refuse(
      StreamError.sessionTerminal,
      `the session is ${session.status}`,
      CloseCode.terminal,
      endOf(session),
    );

  function engineFor(spec: CompiledSpec, session: SessionDocument, hello: Hello): Engine {
    if (session.checkpoint) return restoreEngine(spec, JSON.parse(session.checkpoint.engine));
    return createEngine(spec, {
      topology: session.topology as TopologyName,
      aspectRatio: hello.aspectRatio,
    });
  }

  return {
    async attach(
      sessionId: string,
      claims: RuntimeClaims,
      hello: Hello,
      sink: StreamSink,
      isClosed: () => boolean,
    ): Promise<AttachResult> {
      if (claims.sessionId !== sessionId) {
        return refuse(
          StreamError.tokenSessionMismatch,
          "the runtime token is for another session",
          CloseCode.unauthenticated,
        );
      }
      const found = await store.find(sessionId);
      if (!found)
        return refuse(StreamError.sessionNotFound, "no such session", CloseCode.unknownSession);
      if (found.project_id !== claims.projectId) {
        return refuse(
          StreamError.tokenSessionMismatch,
          "the runtime token is for another session",
          CloseCode.unauthenticated,
        );
      }
      if (isTerminal(found.status)) return terminal(found);
      const due = dueOutcome(found, new Date(), config.limits);
      if (due && due.status !== "completed") {
        // Past its attach, idle or duration deadline, the sweeper just not there yet: the
        // session is over, whatever the sweeper's interval (it must not come back to life).
        await deps.settle(sessionId);
        const settled = await store.find(sessionId);
        if (settled && isTerminal(settled.status)) return terminal(settled);
      }
      const spec = await specs.get(found.movespec_version_id);
      if (!spec)
        return refuse(
          StreamError.internal,
          "the session's MoveSpec cannot be loaded",
          CloseCode.internal,
        );
      const topology: TopologyName =
        hello.topology ??
        (found.topology as TopologyName | undefined) ??
        (supportsTopology(spec, "blazepose-33") ? "blazepose-33" : spec.topologies[0]);
      if (found.topology && found.topology !== topology) {
        return refuse(
          StreamError.topologyMismatch,
          `this session streams ${found.topology} frames (fixed by its first attachment)`,
          CloseCode.policy,
        );
      }
      if (!topology || !supportsTopology(spec, topology)) {
        return refuse(
          StreamError.topologyUnsupported,
          `this MoveSpec runs on ${spec.topologies.join(", ")}, not ${topology}`,
          CloseCode.policy,
        );
      }

      const now = new Date();
      const lease = await leases.acquire(
        sessionId,
        "attach",
        (session) => ({
          attached_at: session.attached_at ?? now,
          topology: session.topology ?? topology,
          last_activity_at: now,
        }),
        found,
      );
      if (lease.kind === "missing")
        return refuse(StreamError.sessionNotFound, "no such session", CloseCode.unknownSession);
      if (lease.kind === "terminal") return terminal(lease.session);
      if (lease.kind === "busy") {
        return refuse(
          StreamError.leaseUnavailable,
          "the session is held elsewhere: try again",
          CloseCode.tryAgainLater,
        );
      }

      // From here to attachments.add nothing awaits: a ReleaseAttachment finds the session.
      const session = lease.session;
      let engine: Engine;
      try {
        engine = engineFor(spec, session, hello);
      } catch (error) {
        logger.error({ err: error, session_id: sessionId }, "checkpoint could not be restored");
        await store.end(sessionId, session.lease_epoch, {
          status: "failed",
          ended_at: new Date(),
          accepted_frames_total: session.accepted_frames_total,
          last_seq: session.last_seq,
          error_code: EndReason.checkpointUnusable,
          error_message: "the session's last checkpoint could not be restored",
        });
        await deps.records.removeAll(sessionId).catch(() => undefined); // no summary to list them
        return refuse(
          EndReason.checkpointUnusable,
          "the session's checkpoint could not be restored",
          CloseCode.internal,
        );
      }
      const owned = new OwnedSession(
        {
          sessionId,
          epoch: session.lease_epoch,
          mode: session.mode,
          status: session.status,
          expiresAt: session.expires_at,
          engine,
          sink,
          lastEventSeq: hello.lastEventSeq,
          recentEvents: session.checkpoint?.recent_events ?? [],
          recordChunks: session.checkpoint?.record_chunks ?? 0,
        },
        {
          store,
          records: deps.records,
          config,
          logger,
          metrics: deps.metrics,
          onDetached: (detached) => attachments.remove(detached),
          settleLater: deps.settleLater,
          turns,
          ends: deps.ends,
          progressBatch,
        },
      );
      attachments.add(owned);
      if (isClosed()) {
        await owned.release("client_gone");
        return refuse(StreamError.internal, "the client left", CloseCode.normal);
      }
      logger.info(
        { session_id: sessionId, lease_epoch: session.lease_epoch, resumed_at: engine.lastSeq },
        "attached",
      );
      sink.send(
        readyMessage({
          sessionId,
          status: session.status,
          mode: session.mode,
          topology: engine.topology,
          acceptedFramesTotal: engine.acceptedFrames,
          lastSeq: engine.lastSeq,
          maxMessageBytes: config.limits.maxMessageBytes,
          liveMaxFps: config.limits.liveMaxFps,
          frameEncoding: hello.frameEncoding,
        }),
      );
      owned.resendUnseenEvents();
      if (session.status === "finalizing") owned.finalize();
      return { ok: true, session: owned };
    },
  };
}

export type SessionAttacher = ReturnType<typeof createSessionAttacher>;
