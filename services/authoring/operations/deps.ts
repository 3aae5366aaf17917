import type { IdempotencyStore } from "@movement-detection/shared/idempotency";
import type { Logger } from "@movement-detection/shared/logging";
import type { MoveSpecStore } from "../store/movespec-store.js";
import type { VersionStore } from "../store/version-store.js";
import type { CatalogueRelay } from "./catalogue-relay.js";
import type { KeyedMutex } from "./keyed-mutex.js";
import type { ProjectGuard } from "./project-guard.js";

/** What the authoring operations are built from (see service.ts). */
export interface AuthoringDeps {
  readonly movespecs: MoveSpecStore;
  readonly versions: VersionStore;
  readonly idempotency: IdempotencyStore;
  readonly relay: CatalogueRelay;
  readonly projects: ProjectGuard;
  readonly versionLocks: KeyedMutex;
  readonly logger: Logger;
  readonly now: () => Date;
}
