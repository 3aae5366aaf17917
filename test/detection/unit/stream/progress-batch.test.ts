/**
 * The replica's batch of periodic checkpoints (services/detection/stream/progress-batch.ts): the
 * checkpoints that come within the wait go to the store in one command for their record chunks
 * and one for their progress, and each answers as if written alone, through saveProgress whenever
 * the batch cannot say of every one that it found its session streaming under its lease. The
 * stores' own filters are tested against the real store in test/detection/session-store.test.ts
 * and test/detection/record-store.test.ts.
 */
import { expect } from "chai";
import type { SessionStatus } from "../../../../services/detection/domain/session-document.js";
import type { RecordStore, RecordsOf } from "../../../../services/detection/store/record-store.js";
import type {
  ProgressOf,
  ProgressWrite,
  SessionStore,
} from "../../../../services/detection/store/session-store.js";
import {
  type CheckpointWrite,
  createProgressBatch,
  PROGRESS_BATCH_MAX,
  PROGRESS_BATCH_MAX_WAIT_MS,
  progressBatchWaitMs,
} from "../../../../services/detection/stream/progress-batch.js";

/** Sessions by id: their status and epoch, and the store calls made, fenced as the real store. */
class Sessions {
  readonly batches: (readonly ProgressOf[])[] = [];
  readonly alone: string[] = [];
  readonly written = new Map<string, number>();
  /** Every store call in order: `records a,b`, `progress a,b`, `alone a`. */
  readonly log: string[] = [];
  /** Chunk ids (`{session}/{n}`) and the epoch they were written under. */
  readonly chunks = new Map<string, number>();
  failBatch: Error | undefined;
  failRecords: Error | undefined;
  private readonly sessions = new Map<string, { status: SessionStatus; epoch: number }>();

  add(id: string, status: SessionStatus, epoch = 1): void {
    this.sessions.set(id, { status, epoch });
  }

  private matches(id: string, epoch: number): { status: SessionStatus } | undefined {
    const session = this.sessions.get(id);
    return session?.epoch === epoch ? session : undefined;
  }

  get records(): RecordStore {
    return {
      saveMany: async (writes: readonly RecordsOf[]) => {
        this.log.push(`records ${writes.map((w) => w.sessionId).join(",")}`);
        if (this.failRecords) throw this.failRecords;
        return writes.map(({ sessionId, first, epoch, chunks }) => {
          const ids = chunks.map((_, offset) => `${sessionId}/${first + offset}`);
          if (ids.some((id) => (this.chunks.get(id) ?? 0) > epoch)) return false;
          for (const id of ids) this.chunks.set(id, epoch);
          return true;
        });
      },
    } as unknown as RecordStore;
  }

  get store(): SessionStore {
    return {
      saveStreamingProgress: async (writes: readonly ProgressOf[]) => {
        this.batches.push(writes);
        this.log.push(`progress ${writes.map((w) => w.sessionId).join(",")}`);
        if (this.failBatch) throw this.failBatch;
        let matched = 0;
        for (const { sessionId, epoch, progress } of writes) {
          if (this.matches(sessionId, epoch)?.status !== "streaming") continue;
          this.written.set(sessionId, progress.accepted_frames_total);
          matched += 1;
        }
        return matched === writes.length;
      },
      saveProgress: async (sessionId: string, epoch: number, progress: ProgressWrite) => {
        this.alone.push(sessionId);
        this.log.push(`alone ${sessionId}`);
        const session = this.matches(sessionId, epoch);
        if (!session) return undefined;
        this.written.set(sessionId, progress.accepted_frames_total);
        return session.status;
      },
    } as unknown as SessionStore;
  }
}

const progress = (frames: number): ProgressWrite => ({
  checkpoint: {
    engine: "{}",
    accepted_frames_total: frames,
    last_seq: frames - 1,
    at: new Date(0),
    record_chunks: 0,
    recent_events: [],
  },
  accepted_frames_total: frames,
  last_seq: frames - 1,
  last_activity_at: new Date(0),
});

const write = (
  sessionId: string,
  frames: number,
  epoch = 1,
  recordChunks = 0,
): CheckpointWrite => ({
  sessionId,
  epoch,
  progress: progress(frames),
  records:
    recordChunks === 0
      ? undefined
      : {
          sessionId,
          first: 0,
          epoch,
          chunks: Array.from({ length: recordChunks }, () => ({ reps: [], holds: [] })),
        },
});

describe("detection progress batch (periodic checkpoints written together)", () => {
  it("writes the checkpoints that come within the wait in one command; each hears streaming", async () => {
    const sessions = new Sessions();
    for (const id of ["a", "b", "c"]) sessions.add(id, "streaming");
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const answers = await Promise.all([
      save(write("a", 10)),
      save(write("b", 20)),
      save(write("c", 30)),
    ]);
    expect(answers).to.deep.equal(["streaming", "streaming", "streaming"]);
    expect(sessions.batches.map((batch) => batch.map((w) => w.sessionId))).to.deep.equal([
      ["a", "b", "c"],
    ]);
    expect(sessions.alone).to.deep.equal([]);
    expect([...sessions.written]).to.deep.equal([
      ["a", 10],
      ["b", 20],
      ["c", 30],
    ]);
  });

  it("writes a checkpoint that found no other within the wait alone", async () => {
    const sessions = new Sessions();
    sessions.add("a", "streaming");
    const save = createProgressBatch(sessions.store, sessions.records, 5);
    expect(await save(write("a", 10))).to.equal("streaming");
    expect(await save(write("a", 20))).to.equal("streaming");
    expect(sessions.batches).to.deep.equal([]);
    expect(sessions.alone).to.deep.equal(["a", "a"]);
  });

  it("when not every session was found streaming, asks each alone: finalizing, lease lost, streaming", async () => {
    const sessions = new Sessions();
    sessions.add("ok", "streaming");
    sessions.add("finalizing", "finalizing");
    sessions.add("replaced", "streaming", 2);
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const answers = await Promise.all([
      save(write("ok", 10)),
      save(write("finalizing", 20)),
      save(write("replaced", 30, 1)),
    ]);
    expect(answers).to.deep.equal(["streaming", "finalizing", undefined]);
    expect(sessions.batches).to.have.length(1);
    expect(sessions.alone).to.deep.equal(["ok", "finalizing", "replaced"]);
    expect(sessions.written.has("replaced")).to.equal(false);
    expect(sessions.written.get("finalizing")).to.equal(20);
  });

  it("a failed batch fails every checkpoint in it", async () => {
    const sessions = new Sessions();
    for (const id of ["a", "b"]) sessions.add(id, "streaming");
    sessions.failBatch = new Error("store unavailable");
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const results = await Promise.allSettled([save(write("a", 10)), save(write("b", 20))]);
    expect(results.map((result) => result.status)).to.deep.equal(["rejected", "rejected"]);
    expect(sessions.alone).to.deep.equal([]);
  });

  it("writes the batch's record chunks in one command first, then its progress in one", async () => {
    const sessions = new Sessions();
    for (const id of ["a", "b", "c"]) sessions.add(id, "streaming");
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const answers = await Promise.all([
      save(write("a", 10, 1, 1)),
      save(write("b", 20)),
      save(write("c", 30, 1, 2)),
    ]);
    expect(answers).to.deep.equal(["streaming", "streaming", "streaming"]);
    expect(sessions.log).to.deep.equal(["records a,c", "progress a,b,c"]);
    expect([...sessions.chunks.keys()]).to.deep.equal(["a/0", "c/0", "c/1"]);
  });

  it("a checkpoint whose chunk a newer lease holder wrote hears the lease lost; its progress is not written", async () => {
    const sessions = new Sessions();
    for (const id of ["a", "b"]) sessions.add(id, "streaming");
    sessions.chunks.set("b/0", 2);
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const answers = await Promise.all([save(write("a", 10, 1, 1)), save(write("b", 20, 1, 1))]);
    expect(answers).to.deep.equal(["streaming", undefined]);
    expect(sessions.log).to.deep.equal(["records a,b", "alone a"]);
    expect(sessions.written.has("b")).to.equal(false);
    expect(sessions.chunks.get("b/0")).to.equal(2);
  });

  it("a failed records write fails every checkpoint of the batch, and no progress is written", async () => {
    const sessions = new Sessions();
    for (const id of ["a", "b"]) sessions.add(id, "streaming");
    sessions.failRecords = new Error("store unavailable");
    const save = createProgressBatch(sessions.store, sessions.records, 20);
    const results = await Promise.allSettled([save(write("a", 10, 1, 1)), save(write("b", 20))]);
    expect(results.map((result) => result.status)).to.deep.equal(["rejected", "rejected"]);
    expect(sessions.log).to.deep.equal(["records a"]);
    expect(sessions.written.size).to.equal(0);
  });

  it(`writes at once when ${PROGRESS_BATCH_MAX} are waiting, without waiting longer`, async () => {
    const sessions = new Sessions();
    const ids = Array.from({ length: PROGRESS_BATCH_MAX + 1 }, (_, i) => `s${i}`);
    for (const id of ids) sessions.add(id, "streaming");
    const save = createProgressBatch(sessions.store, sessions.records, 1000);
    const started = performance.now();
    const full = Promise.all(ids.slice(0, PROGRESS_BATCH_MAX).map((id) => save(write(id, 1))));
    expect(await full).to.have.length(PROGRESS_BATCH_MAX);
    expect(performance.now() - started).to.be.below(500);
    expect(sessions.batches.map((batch) => batch.length)).to.deep.equal([PROGRESS_BATCH_MAX]);
    // One more starts a new batch, which waits for others.
    const next = save(write(ids[PROGRESS_BATCH_MAX], 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sessions.written.has(ids[PROGRESS_BATCH_MAX])).to.equal(false);
    expect(await next).to.equal("streaming");
    expect(performance.now() - started).to.be.at.least(900);
  });

  it("waits a tenth of the checkpoint interval, at most 100 ms; with no wait each is written alone", async () => {
    expect(progressBatchWaitMs(5000)).to.equal(PROGRESS_BATCH_MAX_WAIT_MS);
    expect(progressBatchWaitMs(1000)).to.equal(100);
    expect(progressBatchWaitMs(200)).to.equal(20);
    expect(progressBatchWaitMs(5)).to.equal(0);
    const sessions = new Sessions();
    for (const id of ["a", "b"]) sessions.add(id, "streaming");
    const save = createProgressBatch(sessions.store, sessions.records, 0);
    await Promise.all([save(write("a", 1)), save(write("b", 1))]);
    expect(sessions.batches).to.deep.equal([]);
    expect(sessions.alone).to.deep.equal(["a", "b"]);
  });
});
