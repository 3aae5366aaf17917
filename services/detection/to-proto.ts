import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  SessionMode as ProtoMode,
  SessionStatus as ProtoStatus,
  type Session,
  SessionSchema,
} from "@movement-detection/proto/detection/v1";
import type { SessionDocument, SessionMode, SessionStatus } from "./domain/session-document.js";

/** What the replica attached to a session knows that the database does not yet. */
export interface LiveProgress {
  readonly acceptedFramesTotal: number;
  readonly lastSeq: number;
}

const STATUS: Readonly<Record<SessionStatus, ProtoStatus>> = {
  created: ProtoStatus.CREATED,
  streaming: ProtoStatus.STREAMING,
  finalizing: ProtoStatus.FINALIZING,
  completed: ProtoStatus.COMPLETED,
  failed: ProtoStatus.FAILED,
  cancelled: ProtoStatus.CANCELLED,
};

export const MODE_TO_PROTO: Readonly<Record<SessionMode, ProtoMode>> = {
  live: ProtoMode.LIVE,
  replay: ProtoMode.REPLAY,
};

/** The session resource, with the live owner's counts when they are ahead of the database. */
export function sessionResource(doc: SessionDocument, live?: LiveProgress): Session {
  let accepted = doc.accepted_frames_total;
  let lastSeq = doc.last_seq;
  let status = doc.status;
  if (live && live.acceptedFramesTotal >= accepted && status !== "completed") {
    accepted = live.acceptedFramesTotal;
    lastSeq = live.lastSeq >= 0 ? live.lastSeq : lastSeq;
    // The first frame's status write may still be on its way.
    if (status === "created" && accepted > 0) status = "streaming";
  }
  return create(SessionSchema, {
    sessionId: doc._id,
    organizationId: doc.organization_id,
    projectId: doc.project_id,
    resolvedMovespecVersionId: doc.movespec_version_id,
    movespecId: doc.movespec_id,
    mode: MODE_TO_PROTO[doc.mode],
    status: STATUS[status],
    acceptedFramesTotal: BigInt(accepted),
    lastSeq: lastSeq === undefined ? undefined : BigInt(lastSeq),
    createdAt: timestampFromDate(doc.created_at),
    startedAt: doc.started_at ? timestampFromDate(doc.started_at) : undefined,
    endedAt: doc.ended_at ? timestampFromDate(doc.ended_at) : undefined,
    errorCode: doc.error_code,
    errorMessage: doc.error_message,
    terminalOutcome: doc.terminal_outcome,
  });
}
