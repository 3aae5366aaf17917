import { createClient } from "@connectrpc/connect";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import { createIdempotencyStore } from "@movement-detection/shared/idempotency";
import type { ServiceDefinition } from "@movement-detection/shared/runtime";
import type { Workload } from "@movement-detection/shared/security";
import { createInternalTransport } from "@movement-detection/shared/security";
import { SEARCH_WORDS_VERSION } from "@movement-detection/shared/text";
import { createAuthServiceVerifier } from "@movement-detection/shared/tokens";
import type { AuthoringConfig } from "./config.js";
import { searchFieldsOf } from "./domain/search-fields.js";
import { createAuthoringHandlers } from "./handlers.js";
import { createCatalogueRelay } from "./operations/catalogue-relay.js";
import { createDraftOperations } from "./operations/draft-operations.js";
import { createKeyedMutex } from "./operations/keyed-mutex.js";
import {
  archiveMoveSpecsOfProject,
  createMoveSpecOperations,
} from "./operations/movespec-operations.js";
import { CURRENT_SKELETONS } from "./operations/name-lookalikes.js";
import { createProjectGuard } from "./operations/project-guard.js";
import { createVersionOperations } from "./operations/version-operations.js";
import { createMoveSpecStore } from "./store/movespec-store.js";
import { createVersionStore } from "./store/version-store.js";

export const authoringService: ServiceDefinition<AuthoringConfig> = {
  name: "authoring",
  services: [AuthoringService],
  async start({ config, db, logger, identity }) {
    const transport = (baseUrl: string, expected: Workload) =>
      createInternalTransport(identity, { baseUrl, expected, timeoutMs: config.rpcTimeoutMs });
    const auth = createClient(AuthService, transport(config.authServiceUrl, "auth"));
    const movespecs = createMoveSpecStore(db);
    const versions = createVersionStore(db);
    const idempotency = createIdempotencyStore(db);
    await Promise.all([
      movespecs.ensureIndexes(),
      versions.ensureIndexes(),
      idempotency.ensureIndexes(),
    ]);
    // Public names stored before skeletons were (or under an older confusables table) are
    // compared from the first request on: one query, and one write for each such MoveSpec.
    const backfilled = await movespecs.backfillNameSkeletons(CURRENT_SKELETONS);
    if (backfilled > 0) logger.info({ movespecs: backfilled }, "name skeletons backfilled");
    // Likewise the words a project's listing searches (MoveSpecs stored before them, or split
    // by an older version of the words).
    const searchable = await movespecs.backfillSearchFields({
      of: searchFieldsOf,
      version: SEARCH_WORDS_VERSION,
    });
    if (searchable > 0) logger.info({ movespecs: searchable }, "search words backfilled");
    const relay = createCatalogueRelay({
      store: movespecs,
      catalogue: createClient(CatalogueService, transport(config.catalogueServiceUrl, "catalogue")),
      logger,
      intervalMs: config.catalogueSyncIntervalMs,
    });
    const deps = {
      movespecs,
      versions,
      idempotency,
      relay,
      // A write finding its project archived archives the project's MoveSpecs too: the
      // admin tool does it when it archives a project, this catches any other way it happened.
      projects: createProjectGuard(auth, logger, async (projectId, archivedAt) => {
        await archiveMoveSpecsOfProject(
          { movespecs, relay, logger },
          projectId,
          archivedAt,
          "authoring",
        );
      }),
      versionLocks: createKeyedMutex(),
      logger,
      now: () => new Date(),
    };
    const handlers = createAuthoringHandlers({
      movespecs: createMoveSpecOperations(deps),
      drafts: createDraftOperations(deps),
      versions: createVersionOperations(deps),
    });
    // The users the gateway forwards are verified here, against the auth service's public keys.
    const userTokens = createAuthServiceVerifier(auth, config.tokens);
    void userTokens.warmUp();
    relay.start();
    return {
      register: (router) => router.service(AuthoringService, handlers),
      userTokens,
      stop: () => relay.stop(),
    };
  },
};
