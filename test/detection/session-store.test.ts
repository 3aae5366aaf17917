/**
 * The terminal write of the `sessions` collection against the real store: it is fenced by the
 * lease epoch, and it carries the first frame's time, because the status write made at the first
 * frame is not awaited and may land after the session ended (then it matches nothing) or never.
 * And the periodic checkpoints of several sessions in one command, each fenced as saveProgress is.
 */

import { expect } from "chai";
import { MongoClient } from "mongodb";
import type { SessionDocument } from "../../services/detection/domain/session-document.js";
import {
  createSessionStore,
  type SessionStore,
} from "../../services/detection/store/session-store.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { sessionDocument, SESSION_T0 as T0 } from "./support/session-document.js";

const terminal = (startedAt?: Date) => ({
  status: "completed" as const,
  ended_at: new Date(T0 + 10_000),
  started_at: startedAt,
  accepted_frames_total: 12,
  last_seq: 11,
});

describe("detection session store: writes fenced by the lease", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let store: SessionStore;
  let raw: ReturnType<MongoClient["db"]>;

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri);
    raw = client.db("session_store_test");
    store = createSessionStore(raw);
  });

  after(async () => {
    await client?.close();
    await mongo?.stop();
  });

  const insert = async (doc: SessionDocument) => {
    await raw.collection<SessionDocument>("sessions").insertOne(doc);
    return doc._id;
  };
  const read = (id: string) => raw.collection<SessionDocument>("sessions").findOne({ _id: id });

  describe("the finalizing write", () => {
    const at = new Date(T0 + 5_000);

    it("of an attachment: only under its lease, so a replaced one leaves the session streaming", async () => {
      const id = await insert(sessionDocument({ status: "streaming", lease_epoch: 3 }));
      expect(await store.requestFinalize(id, "streaming", at, 2)).to.equal(undefined);
      expect((await read(id))?.status).to.equal("streaming");
      const after = await store.requestFinalize(id, "streaming", at, 3);
      expect(after).to.deep.include({ status: "finalizing", lease_epoch: 3 });
      expect((await read(id))?.finalize_requested_at?.getTime()).to.equal(T0 + 5_000);
    });

    it("of the API (no epoch): whoever holds the lease, from the status read", async () => {
      const id = await insert(sessionDocument({ status: "streaming", lease_epoch: 7 }));
      expect(await store.requestFinalize(id, "created", at)).to.equal(undefined);
      expect(await store.requestFinalize(id, "streaming", at)).to.deep.include({
        status: "finalizing",
        lease_epoch: 7,
      });
    });
  });

  it("sets started_at when the first frame's status write never landed", async () => {
    const id = await insert(sessionDocument());
    expect(await store.end(id, 1, terminal(new Date(T0 + 1000)))).to.equal(true);
    const ended = await read(id);
    expect(ended).to.deep.include({ status: "completed", accepted_frames_total: 12, lease: null });
    expect(ended?.started_at?.getTime()).to.equal(T0 + 1000);
    expect(ended?.ended_at?.getTime()).to.equal(T0 + 10_000);
    // The late status write then matches nothing: the session stays completed.
    await store.markStreaming(id, 2, new Date(T0 + 1000));
    await store.markStreaming(id, 1, new Date(T0 + 1000));
    expect((await read(id))?.status).to.equal("completed");
  });

  it("keeps the started_at a previous attachment wrote", async () => {
    const id = await insert(
      sessionDocument({ status: "streaming", started_at: new Date(T0 + 500) }),
    );
    expect(await store.end(id, 1, terminal(new Date(T0 + 4000)))).to.equal(true);
    expect((await read(id))?.started_at?.getTime()).to.equal(T0 + 500);
  });

  it("leaves started_at alone when the attachment saw no frame", async () => {
    const id = await insert(sessionDocument());
    expect(await store.end(id, 1, terminal())).to.equal(true);
    expect(await read(id)).not.to.have.property("started_at");
  });

  it("removes the checkpoint with the terminal state (nothing resumes an ended session), or writes the one given", async () => {
    const checkpoint = {
      engine: '{"frames":12}',
      accepted_frames_total: 12,
      last_seq: 11,
      at: new Date(T0 + 900),
      record_chunks: 2,
      recent_events: [],
    };
    const dropped = await insert(sessionDocument({ status: "streaming", checkpoint }));
    expect(await store.end(dropped, 1, terminal(new Date(T0 + 1000)))).to.equal(true);
    const ended = await read(dropped);
    expect(ended).to.deep.include({ status: "completed", accepted_frames_total: 12 });
    expect(ended).not.to.have.property("checkpoint");

    const kept = await insert(sessionDocument({ status: "streaming" }));
    const given = { ...terminal(new Date(T0 + 1000)), checkpoint };
    expect(await store.end(kept, 1, given)).to.equal(true);
    expect((await read(kept))?.checkpoint).to.deep.equal(checkpoint);
  });

  it("writes nothing under a lost lease", async () => {
    const id = await insert(sessionDocument({ lease_epoch: 3 }));
    expect(await store.end(id, 2, terminal(new Date(T0 + 1000)))).to.equal(false);
    const unchanged = await read(id);
    expect(unchanged?.status).to.equal("created");
    expect(unchanged).not.to.have.property("started_at");
  });

  describe("several sessions' checkpoints in one command", () => {
    const progress = (frames: number) => ({
      checkpoint: {
        engine: `{"frames":${frames}}`,
        accepted_frames_total: frames,
        last_seq: frames - 1,
        at: new Date(T0 + frames),
        record_chunks: 0,
        recent_events: [],
      },
      accepted_frames_total: frames,
      last_seq: frames - 1,
      last_activity_at: new Date(T0 + frames),
    });

    it("writes every one, and says so, when each session is streaming under its epoch", async () => {
      const a = await insert(sessionDocument({ status: "streaming" }));
      const b = await insert(sessionDocument({ status: "streaming", lease_epoch: 4 }));
      const written = await store.saveStreamingProgress([
        { sessionId: a, epoch: 1, progress: progress(30) },
        { sessionId: b, epoch: 4, progress: progress(60) },
      ]);
      expect(written).to.equal(true);
      expect(await read(a)).to.deep.include({ accepted_frames_total: 30, last_seq: 29 });
      expect((await read(a))?.checkpoint?.engine).to.equal('{"frames":30}');
      expect(await read(b)).to.deep.include({ accepted_frames_total: 60, last_seq: 59 });
      expect((await read(b))?.lease).to.not.equal(null);
    });

    for (const [name, fields, epoch] of [
      ["a lost lease", { status: "streaming", lease_epoch: 3 }, 2],
      ["a session finalizing", { status: "finalizing" }, 1],
      ["a session still created", { status: "created" }, 1],
    ] as const) {
      it(`says not all when one is ${name}: the others written, that one untouched`, async () => {
        const ok = await insert(sessionDocument({ status: "streaming" }));
        const other = await insert(sessionDocument(fields));
        const written = await store.saveStreamingProgress([
          { sessionId: ok, epoch: 1, progress: progress(30) },
          { sessionId: other, epoch, progress: progress(90) },
        ]);
        expect(written).to.equal(false);
        expect((await read(ok))?.accepted_frames_total).to.equal(30);
        expect(await read(other)).to.deep.include({ accepted_frames_total: 0 });
        expect(await read(other)).not.to.have.property("checkpoint");
      });
    }
  });
});
