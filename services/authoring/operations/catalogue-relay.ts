import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import {
  type CatalogueService,
  type EntrySnapshot,
  EntrySnapshotSchema,
  Visibility,
} from "@movement-detection/proto/catalogue/v1";
import type { Logger } from "@movement-detection/shared/logging";
import type { MoveSpecDoc } from "../store/documents.js";
import type { MoveSpecStore } from "../store/movespec-store.js";

/**
 * Keeps the catalogue in step with authoring (the outbox pattern without a separate outbox):
 * every catalogue-relevant change sets `catalogue_pending` in the same atomic update as the change
 * itself, so no change can be lost between the two services' writes. The relay pushes pending
 * MoveSpecs (full snapshots, so a push is idempotent and order does not matter: the catalogue keeps
 * the highest revision), then clears the flag only for the revision it pushed.
 *
 * It runs right after each change (`nudge`) and on a timer, so after a crash of either service,
 * or while the catalogue is down, the catalogue converges on its own once both run again.
 */
export interface CatalogueRelay {
  /** Pushes soon (coalesced with any push already under way). */
  nudge(): void;
  start(): void;
  /** Stops the timer and waits for a push under way. */
  stop(): Promise<void>;
  /** One full pass now; resolves true when nothing is left pending (for tests and tools). */
  flush(): Promise<boolean>;
}

export interface CatalogueRelayOptions {
  readonly store: MoveSpecStore;
  readonly catalogue: Client<typeof CatalogueService>;
  readonly logger: Logger;
  readonly intervalMs: number;
  readonly batchSize?: number;
}

export function createCatalogueRelay(options: CatalogueRelayOptions): CatalogueRelay {
  const batchSize = options.batchSize ?? 100;
  let running: Promise<boolean> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  async function pushOnce(): Promise<boolean> {
    for (;;) {
      const pending = await options.store.findCataloguePending(batchSize);
      if (pending.length === 0) return true;
      const { storedRevisions } = await options.catalogue.syncEntries({
        entries: pending.map(snapshotOf),
      });
      for (const doc of pending) {
        // Stored at (or past) what we pushed: this revision is done.
        if ((storedRevisions[doc._id] ?? 0) >= doc.revision) {
          await options.store.markCatalogueSynced(doc._id, doc.revision);
        }
      }
      if (pending.length < batchSize || stopped) return false;
    }
  }

  function pass(): Promise<boolean> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let clean = false;
      do {
        again = false;
        try {
          clean = await pushOnce();
          if (failing) options.logger.info("catalogue sync recovered");
          failing = false;
        } catch (error) {
          // Logged once per outage; the timer retries.
          if (!failing) {
            options.logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              "catalogue sync failed; will retry",
            );
          }
          failing = true;
          clean = false;
          again = false;
        }
      } while (again && !stopped);
      running = undefined;
      return clean;
    })();
    return running;
  }

  return {
    nudge() {
      if (!stopped) void pass();
    },
    start() {
      stopped = false;
      timer = setInterval(() => void pass(), options.intervalMs);
      timer.unref();
      void pass();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    async flush() {
      await running;
      return pass();
    },
  };
}

const VISIBILITY: Readonly<Record<MoveSpecDoc["visibility"], Visibility>> = {
  private: Visibility.PRIVATE,
  public: Visibility.PUBLIC,
  delisted: Visibility.DELISTED,
};

export function snapshotOf(doc: MoveSpecDoc): EntrySnapshot {
  return create(EntrySnapshotSchema, {
    movespecId: doc._id,
    projectId: doc.project_id,
    organizationId: doc.organization_id,
    name: doc.name,
    description: doc.description,
    visibility: VISIBILITY[doc.visibility],
    createdAt: timestampFromDate(doc.created_at),
    updatedAt: timestampFromDate(doc.updated_at),
    archivedAt: doc.archived_at ? timestampFromDate(doc.archived_at) : undefined,
    currentReleasedVersionId: doc.current_released_version_id,
    revision: doc.revision,
  });
}
