import type { ServiceImpl } from "@connectrpc/connect";
import type { DetectionService } from "@movement-detection/proto/detection/v1";
import { callerOf, withCaller } from "@movement-detection/shared/security";
import type { SessionOperations } from "./operations/session-operations.js";
import type { Attachments } from "./stream/attachments.js";

export interface DetectionHandlerDeps {
  readonly sessions: SessionOperations;
  readonly attachments: Attachments;
  readonly replicaId: string;
  readonly streamPort: () => number;
  readonly maxMessageBytes: number;
}

/** gRPC handlers: thin translations to the session operations and the local attachments. */
export function createDetectionHandlers(
  deps: DetectionHandlerDeps,
): ServiceImpl<typeof DetectionService> {
  const { sessions, attachments } = deps;
  return {
    createSession: (request, context) => sessions.create(withCaller(request, context)),
    async getSession(request, context) {
      return { session: await sessions.get(callerOf(context), request.sessionId) };
    },
    async finalizeSession(request, context) {
      return { session: await sessions.finalize(callerOf(context), request.sessionId) };
    },
    getStreamEndpoint() {
      return {
        streamPort: deps.streamPort(),
        replicaId: deps.replicaId,
        maxMessageBytes: deps.maxMessageBytes,
      };
    },
    async releaseAttachment(request) {
      await attachments.release(request.sessionId, Number(request.leaseEpoch));
      return { released: true };
    },
    getLiveProgress(request) {
      const live = attachments.progress(request.sessionId);
      if (!live) return { attached: false, acceptedFramesTotal: 0n };
      return {
        attached: true,
        acceptedFramesTotal: BigInt(live.acceptedFramesTotal),
        lastSeq: live.lastSeq >= 0 ? BigInt(live.lastSeq) : undefined,
      };
    },
    notifyFinalize(request) {
      return { attached: attachments.notifyFinalize(request.sessionId) };
    },
  };
}
