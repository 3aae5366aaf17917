/**
 * Retention of ended sessions (DETECTION_SESSION_RETENTION_DAYS) against the real store and its
 * TTL monitor: sessions are ended by the real settlement under an injected clock, so that one
 * "ended 31 days ago" carries that `ended_at`, and the store's monitor (every 100 ms here) deletes
 * it on its next pass; record chunks left behind go the same way. The store's clock is never
 * touched: only the service's.
 */

import { newId } from "@movement-detection/shared/ids";
import { expect } from "chai";
import { type Db, MongoClient } from "mongodb";
import { pino } from "pino";
import type { SessionDocument } from "../../services/detection/domain/session-document.js";
import {
  recordChunkTtlMs,
  retentionMs,
} from "../../services/detection/domain/session-retention.js";
import { createAttachmentLeases } from "../../services/detection/lease/attachment-lease.js";
import { createReplicaPresence } from "../../services/detection/lease/replica-presence.js";
import { createSessionSettlement } from "../../services/detection/operations/session-settlement.js";
import { createSpecCache } from "../../services/detection/operations/spec-cache.js";
import {
  createRecordStore,
  type RecordStore,
} from "../../services/detection/store/record-store.js";
import { createReplicaStore } from "../../services/detection/store/replica-store.js";
import {
  createSessionStore,
  type SessionStore,
} from "../../services/detection/store/session-store.js";
import { createSpecStore } from "../../services/detection/store/spec-store.js";
import { createAttachments } from "../../services/detection/stream/attachments.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { eventually } from "../support/eventually.js";
import { exampleYaml } from "./support/session-api.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const RETENTION_DAYS = 30;
const MAX_DURATION_MS = 240 * MINUTE_MS;
const logger = pino({ level: "silent" });

describe("detection session retention: ended sessions expire by the store's TTL monitor", function () {
  this.timeout(20_000);
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let db: Db;
  /** How far the service's clock is from the wall clock: each test sets it. */
  let offsetMs = 0;
  const clock = () => Date.now() + offsetMs;
  let store: SessionStore;
  let records: RecordStore;
  let settle: (sessionId: string) => Promise<void>;
  let stopPresence: () => Promise<void>;
  const versionId = newId();

  before(async function () {
    this.timeout(30_000);
    mongo = await startEmbeddedMongo({ env: { EMBEDDED_MONGO_TTL_INTERVAL_MS: "100" } });
    client = new MongoClient(mongo.uri);
    db = client.db("session_retention_test");
    const retention = retentionMs(RETENTION_DAYS);
    store = createSessionStore(db, { retentionMs: retention });
    records = createRecordStore(db, {
      ttlMs: recordChunkTtlMs(MAX_DURATION_MS, retention),
      now: clock,
    });
    await Promise.all([store.ensureIndexes(), records.ensureIndexes()]);
    const specStore = createSpecStore(db);
    await specStore.save({
      _id: versionId,
      movespec_id: newId(),
      yaml_source: exampleYaml("squat"),
      content_hash: "test",
    });
    const attachments = createAttachments(store, logger);
    const presence = createReplicaPresence({
      id: newId(),
      url: undefined,
      ttlMs: 10_000,
      store: createReplicaStore(db),
      logger,
      onLost: () => attachments.abandonAll(),
    });
    await presence.start();
    stopPresence = () => presence.stop();
    const settlement = createSessionSettlement({
      store,
      records,
      leases: createAttachmentLeases({
        store,
        presence,
        attachments,
        // No other replica holds a lease in this test: a peer is never asked.
        peers: {
          of: () => {
            throw new Error("no peer replica in this test");
          },
        },
        logger,
        waitMs: 1000,
        rpcTimeoutMs: 1000,
      }),
      specs: createSpecCache(specStore),
      limits: { idleTimeoutMs: 2 * MINUTE_MS, summaryMaxBytes: 1024 * 1024 },
      logger,
      now: clock,
    });
    settle = (sessionId) => settlement.settle(sessionId);
  });

  after(async () => {
    await stopPresence?.();
    await client?.close();
    await mongo?.stop();
  });

  const sessions = () => db.collection<SessionDocument>("sessions");
  const exists = async (id: string) => (await sessions().countDocuments({ _id: id })) === 1;
  const chunkExists = async (sessionId: string) =>
    (await db.collection("session_records").countDocuments({ session_id: sessionId })) > 0;

  /** A session finalized (through the API, say) at the clock's now, not yet completed. */
  async function finalizingSession(fields: Partial<SessionDocument> = {}): Promise<string> {
    const at = clock();
    const session: SessionDocument = {
      _id: newId(),
      organization_id: newId(),
      project_id: newId(),
      movespec_id: newId(),
      movespec_version_id: versionId,
      mode: "live",
      status: "finalizing",
      contract_major: 1,
      created_at: new Date(at - 10 * MINUTE_MS),
      attach_deadline: new Date(at),
      expires_at: new Date(at + MAX_DURATION_MS),
      attached_at: new Date(at - 9 * MINUTE_MS),
      last_activity_at: new Date(at),
      finalize_requested_at: new Date(at),
      accepted_frames_total: 0,
      lease: null,
      lease_epoch: 0,
      ...fields,
    };
    await sessions().insertOne(session);
    return session._id;
  }

  /** Finalized and completed by the settlement with the clock `daysAgo` days behind. */
  async function sessionEnded(daysAgo: number): Promise<string> {
    offsetMs = -daysAgo * DAY_MS;
    const id = await finalizingSession();
    await settle(id);
    const ended = await sessions().findOne({ _id: id });
    // The monitor (every 100 ms) may already have taken one ended past the retention: it only
    // deletes documents with an ended_at, so its being gone says the end was written.
    if (ended === null && daysAgo > RETENTION_DAYS) return id;
    expect(ended?.status).to.equal("completed");
    expect(ended?.terminal_outcome).to.be.a("string");
    expect(ended?.ended_at?.getTime()).to.be.closeTo(Date.now() - daysAgo * DAY_MS, 5000);
    return id;
  }

  it("deletes a session ended more than the retention ago, summary and all; keeps the others", async () => {
    const expired = await sessionEnded(RETENTION_DAYS + 1);
    const kept = await sessionEnded(RETENTION_DAYS - 1);
    // Active for 40 days (no ended_at): retention never touches an active session.
    offsetMs = -40 * DAY_MS;
    const active = await finalizingSession({ status: "streaming" });
    offsetMs = 0;

    await eventually(async () => !(await exists(expired)), 5000);
    // Several passes of the monitor (every 100 ms) later, the others are still there.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await exists(kept)).to.equal(true);
    expect(await exists(active)).to.equal(true);
  });

  it("deletes record chunks an end left behind, the maximum duration and the retention after they were written", async () => {
    // A chunk of a session that died with its replica: written (by the clock) long enough ago...
    offsetMs = -(MAX_DURATION_MS + RETENTION_DAYS * DAY_MS + MINUTE_MS);
    const orphan = newId();
    expect(await records.save(orphan, 0, 1, [{ reps: [], holds: [] }])).to.equal(true);
    // ...and one that may still belong to a live session (written just within the bound).
    offsetMs = -(MAX_DURATION_MS + RETENTION_DAYS * DAY_MS - MINUTE_MS);
    const recent = newId();
    expect(await records.save(recent, 0, 1, [{ reps: [], holds: [] }])).to.equal(true);
    offsetMs = 0;

    await eventually(async () => !(await chunkExists(orphan)), 5000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await chunkExists(recent)).to.equal(true);
  });

  it("makes the TTL index what the configuration says across restarts: replaced, then dropped for 0", async () => {
    const ttlOf = async () =>
      (await sessions().listIndexes().toArray()).find((index) => index.name === "retention")
        ?.expireAfterSeconds;
    expect(await ttlOf()).to.equal(RETENTION_DAYS * 86_400);
    // A restart with 7 days: the index follows, and so does every ended session at once.
    await createSessionStore(db, { retentionMs: retentionMs(7) }).ensureIndexes();
    expect(await ttlOf()).to.equal(7 * 86_400);
    // 0 keeps them for ever: no index.
    await createSessionStore(db, { retentionMs: retentionMs(0) }).ensureIndexes();
    expect(await ttlOf()).to.equal(undefined);
    offsetMs = -(RETENTION_DAYS + 1) * DAY_MS;
    const keptForEver = await finalizingSession();
    await settle(keptForEver);
    offsetMs = 0;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await exists(keptForEver)).to.equal(true);
    // Back to 30 days: that session goes on the next pass.
    await createSessionStore(db, { retentionMs: retentionMs(RETENTION_DAYS) }).ensureIndexes();
    expect(await ttlOf()).to.equal(RETENTION_DAYS * 86_400);
    await eventually(async () => !(await exists(keptForEver)), 5000);
  });
});
