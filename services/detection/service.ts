import { createClient } from "@connectrpc/connect";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { DetectionService } from "@movement-detection/proto/detection/v1";
import { createIdempotencyStore } from "@movement-detection/shared/idempotency";
import { newId } from "@movement-detection/shared/ids";
import { createAdmissionGate } from "@movement-detection/shared/process";
import type { ServiceDefinition } from "@movement-detection/shared/runtime";
import type { Workload } from "@movement-detection/shared/security";
import { createInternalTransport } from "@movement-detection/shared/security";
import { createAuthServiceVerifier } from "@movement-detection/shared/tokens";
import type { DetectionConfig } from "./config.js";
import { recordChunkTtlMs, retentionMs } from "./domain/session-retention.js";
import { createDetectionHandlers } from "./handlers.js";
import { createAttachmentLeases } from "./lease/attachment-lease.js";
import { createPeerClients } from "./lease/peer-clients.js";
import { createReplicaPresence } from "./lease/replica-presence.js";
import { createSessionOperations } from "./operations/session-operations.js";
import { createSessionSettlement } from "./operations/session-settlement.js";
import { createSessionSweeper } from "./operations/session-sweeper.js";
import { createSpecCache } from "./operations/spec-cache.js";
import { createLockStore } from "./store/lock-store.js";
import { createRecordStore } from "./store/record-store.js";
import { createReplicaStore } from "./store/replica-store.js";
import { createSessionStore } from "./store/session-store.js";
import { createSpecStore } from "./store/spec-store.js";
import { createAttachments } from "./stream/attachments.js";
import { createSessionAttacher } from "./stream/session-attacher.js";
import { createStreamMetrics } from "./stream/stream-metrics.js";
import { createStreamServer } from "./stream/stream-server.js";

export const detectionService: ServiceDefinition<DetectionConfig> = {
  name: "detection",
  services: [DetectionService],
  async start({ config, db, logger, metrics, identity }) {
    const transport = (baseUrl: string, expected: Workload) =>
      createInternalTransport(identity, { baseUrl, expected, timeoutMs: config.rpcTimeoutMs });
    const auth = createClient(AuthService, transport(config.authServiceUrl, "auth"));
    const authoring = createClient(
      AuthoringService,
      transport(config.authoringServiceUrl, "authoring"),
    );

    const { limits, durability } = config;
    const retention = retentionMs(config.sessionRetentionDays);
    const store = createSessionStore(db, { retentionMs: retention });
    const records = createRecordStore(db, {
      ttlMs: recordChunkTtlMs(limits.maxDurationMs, retention),
    });
    const specStore = createSpecStore(db);
    const replicas = createReplicaStore(db);
    const locks = createLockStore(db);
    const idempotency = createIdempotencyStore(db);
    await Promise.all([
      store.ensureIndexes(),
      records.ensureIndexes(),
      replicas.ensureIndexes(),
      locks.ensureIndexes(),
      idempotency.ensureIndexes(),
    ]);
    logger.info(
      { session_retention_days: config.sessionRetentionDays },
      config.sessionRetentionDays > 0
        ? "ended sessions are deleted after the retention"
        : "ended sessions are kept for ever",
    );

    const specs = createSpecCache(specStore);
    const attachments = createAttachments(store, logger);
    // Sessions end one at a time while the replica serves (stream/session-lifecycle.ts); once it
    // stops or is fenced, the ends still waiting go at once, as they did before pacing.
    const ends = createAdmissionGate({
      inFlight: config.sessionEndsInFlight,
      queueLimit: Number.POSITIVE_INFINITY,
    });
    const presence = createReplicaPresence({
      id: newId(),
      url: config.advertiseUrl,
      ttlMs: durability.replicaTtlMs,
      store: replicas,
      logger,
      onLost: () => {
        ends.open();
        attachments.abandonAll();
      },
    });
    const peers = createPeerClients(identity, config.rpcTimeoutMs);
    const leases = createAttachmentLeases({
      store,
      presence,
      attachments,
      peers,
      logger,
      waitMs: durability.replicaTtlMs + 2000,
      rpcTimeoutMs: Math.min(config.rpcTimeoutMs, 5000),
    });
    const settlement = createSessionSettlement({ store, records, leases, specs, limits, logger });
    const sweeper = createSessionSweeper({
      replicaId: presence.id,
      intervalMs: durability.sweepIntervalMs,
      limits,
      finalizingGraceMs: 3 * durability.checkpointIntervalMs + durability.replicaTtlMs,
      sessions: store,
      replicas,
      locks,
      settlement,
      logger,
    });
    const verifier = createAuthServiceVerifier(auth, config.tokens);
    void verifier.warmUp();
    const streams = createStreamServer({
      verifier,
      identity,
      attacher: createSessionAttacher({
        config,
        store,
        records,
        specs,
        leases,
        attachments,
        ends,
        logger,
        metrics: createStreamMetrics(metrics.registry, attachments),
        settle: (id) => settlement.settle(id),
        settleLater: (id) => settlement.settleLater(id),
      }),
      helloTimeoutMs: limits.helloTimeoutMs,
      maxMessageBytes: limits.maxMessageBytes,
      logger,
    });

    await presence.start();
    const streamPort = await streams.listen(config.streamPort, config.grpcHost);
    attachments.start(
      Math.max(
        20,
        Math.min(
          1000,
          Math.floor(Math.min(durability.checkpointIntervalMs, limits.idleTimeoutMs) / 4),
        ),
      ),
    );
    sweeper.start();
    logger.info(
      { stream_port: streamPort, replica_id: presence.id, advertise_url: config.advertiseUrl },
      "stream listening",
    );

    const sessions = createSessionOperations({
      config,
      store,
      specStore,
      specs,
      idempotency,
      authoring,
      auth,
      attachments,
      presence,
      peers,
      settlement,
      logger,
    });
    const handlers = createDetectionHandlers({
      sessions,
      attachments,
      replicaId: presence.id,
      streamPort: () => streamPort,
      maxMessageBytes: limits.maxMessageBytes,
    });
    return {
      register: (router) => router.service(DetectionService, handlers),
      // The same verifier checks the users the gateway forwards (access tokens).
      userTokens: verifier,
      async stop() {
        attachments.stop();
        await sweeper.stop();
        settlement.stop();
        ends.open();
        await attachments.releaseAll();
        await streams.close(config.shutdownTimeoutMs);
        await presence.stop();
      },
    };
  },
};
