import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AuthService } from "../../proto/gen/auth/v1/auth_pb.js";
import { AuthoringService } from "../../proto/gen/authoring/v1/authoring_pb.js";
import { CatalogueService } from "../../proto/gen/catalogue/v1/catalogue_pb.js";
import { createIdempotencyStore } from "../shared/idempotency/index.js";
import type { ServiceDefinition } from "../shared/runtime/service-runner.js";
import { clientTracingInterceptor } from "../shared/telemetry/rpc-tracing.js";
import type { AuthoringConfig } from "./config.js";
import { createAuthoringHandlers } from "./handlers.js";
import { createCatalogueRelay } from "./operations/catalogue-relay.js";
import { createDraftOperations } from "./operations/draft-operations.js";
import { createKeyedMutex } from "./operations/keyed-mutex.js";
import { createMoveSpecOperations } from "./operations/movespec-operations.js";
import { createProjectGuard } from "./operations/project-guard.js";
import { createVersionOperations } from "./operations/version-operations.js";
import { createMoveSpecStore } from "./store/movespec-store.js";
import { createVersionStore } from "./store/version-store.js";

export const authoringService: ServiceDefinition<AuthoringConfig> = {
  name: "authoring",
  services: [AuthoringService],
  async start({ config, db, logger }) {
    const transport = (baseUrl: string) =>
      createGrpcTransport({
        baseUrl,
        defaultTimeoutMs: config.rpcTimeoutMs,
        idleConnectionTimeoutMs: 30_000,
        interceptors: [clientTracingInterceptor()],
      });
    const movespecs = createMoveSpecStore(db);
    const versions = createVersionStore(db);
    const idempotency = createIdempotencyStore(db);
    await Promise.all([
      movespecs.ensureIndexes(),
      versions.ensureIndexes(),
      idempotency.ensureIndexes(),
    ]);
    const relay = createCatalogueRelay({
      store: movespecs,
      catalogue: createClient(CatalogueService, transport(config.catalogueServiceUrl)),
      logger,
      intervalMs: config.catalogueSyncIntervalMs,
    });
    const deps = {
      movespecs,
      versions,
      idempotency,
      relay,
      projects: createProjectGuard(
        createClient(AuthService, transport(config.authServiceUrl)),
        logger,
      ),
      versionLocks: createKeyedMutex(),
      logger,
      now: () => new Date(),
    };
    const handlers = createAuthoringHandlers({
      movespecs: createMoveSpecOperations(deps),
      drafts: createDraftOperations(deps),
      versions: createVersionOperations(deps),
    });
    relay.start();
    return {
      register: (router) => router.service(AuthoringService, handlers),
      stop: () => relay.stop(),
    };
  },
};
