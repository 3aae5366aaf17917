/**
 * Issue 18: a session's state stays the same size however long it streams. The engine's
 * repetition records leave each checkpoint for `session_records` and come back in the summary
 * at the end (through the stream's finalize, and through the API from the last checkpoint);
 * a summary past DETECTION_SUMMARY_MAX_BYTES keeps its first records and counts the rest.
 */

import type { DetectionEvent } from "@movement-detection/movespec";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { loadExample, readFrames, runFrames } from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { replicaMetric } from "./support/detection-process.js";
import { attach, type RawStream } from "./support/raw-stream.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
  waitForStatus,
} from "./support/session-api.js";

const SUMMARY_MAX_BYTES = 64 * 1024;
const LAP = readFrames("m01_s01"); // 10 squats in 690 frames

/** The recording `laps` times over, seq and t rising throughout. */
function looped(laps: number) {
  const lapSeconds = (LAP.at(-1)?.t ?? 0) + 1;
  return Array.from({ length: laps }, (_, lap) =>
    LAP.map((frame, i) => ({
      seq: lap * LAP.length + i,
      t: Math.round((frame.t + lap * lapSeconds) * 1e4) / 1e4,
      keypoints: frame.keypoints,
    })),
  ).flat();
}

/** The engine's own session.summary event for these frames (no service, no records taken out). */
function engineSummary(frames: unknown[]): Extract<DetectionEvent, { type: "session.summary" }> {
  const last = runFrames(loadExample("squat"), frames).at(-1);
  if (last?.type !== "session.summary") throw new Error("the engine ended without a summary");
  return JSON.parse(JSON.stringify(last));
}

describe("detection: long sessions keep their state bounded", function () {
  this.timeout(120_000);
  let system: TestSystem;
  let tenant: TestTenant;
  let mongo: MongoClient;
  let movespecId: string;

  before(async function () {
    this.timeout(60_000);
    system = await startTestSystem({
      serviceEnv: {
        detection: {
          DETECTION_CHECKPOINT_INTERVAL_MS: "50",
          DETECTION_SUMMARY_MAX_BYTES: String(SUMMARY_MAX_BYTES),
        },
      },
    });
    tenant = await createTenant(system);
    movespecId = (await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" }))
      .movespecId;
    mongo = new MongoClient(system.mongodbUri);
  });

  after(async () => {
    await mongo?.close();
    await system?.stop();
  });

  const db = () => mongo.db("mds_detection");
  const storedChunks = (sessionId: string) =>
    db().collection("session_records").countDocuments({ session_id: sessionId });
  const checkpointOf = async (sessionId: string) =>
    (
      await db()
        .collection<{ _id: string; checkpoint?: { engine: string; record_chunks?: number } }>(
          "sessions",
        )
        .findOne({ _id: sessionId })
    )?.checkpoint;

  /** Sends `frames` in batches of 40 and waits for the ack of the last one. */
  async function stream(socket: RawStream, frames: ReturnType<typeof looped>): Promise<void> {
    for (let i = 0; i < frames.length; i += 40)
      socket.send({ type: "frames", frames: frames.slice(i, i + 40) });
    const last = frames.at(-1)?.seq;
    await socket.next("ack", (ack) => ack.last_seq === last, 30_000);
  }

  it("400 repetitions: checkpoints the same size throughout, the summary lists what fits and counts all", async () => {
    const frames = looped(40);
    const session = await createSession(tenant, { movespec_id: movespecId, mode: "replay" });
    const socket = await attach(session.stream_url, session.runtime_token);
    const sizes: number[] = [];
    for (let lap = 0; lap < 40; lap += 4) {
      await stream(socket, frames.slice(lap * LAP.length, (lap + 4) * LAP.length));
      const checkpoint = await checkpointOf(session.session_id);
      sizes.push(checkpoint?.engine.length ?? Number.NaN);
    }
    // The same state all along: only the digits of the numbers in it vary. The reference squat's
    // adaptive signal keeps 5 s of samples (ring and sorted copy), most of its size.
    expect(Math.max(...sizes), `checkpoint sizes ${sizes}`).to.be.at.most(sizes[0] * 1.05);
    expect(Math.max(...sizes)).to.be.below(16_384);
    expect((await checkpointOf(session.session_id))?.record_chunks).to.be.above(1);
    expect(await storedChunks(session.session_id)).to.be.above(1);

    socket.send({ type: "finalize" });
    const end = await socket.next("end", undefined, 30_000);
    const expected = engineSummary(frames);
    expect(expected.count).to.equal(400);
    const outcome = JSON.parse(end.terminal_outcome);
    // 400 repetitions of about 280 bytes do not fit in 64 KiB: the first ones are listed.
    const listed = outcome.reps.length;
    expect(listed).to.be.within(100, 399);
    expect(Buffer.byteLength(end.terminal_outcome)).to.be.at.most(SUMMARY_MAX_BYTES);
    expect(outcome).to.deep.equal({
      ...expected,
      reps: expected.reps.slice(0, listed),
      reps_omitted: 400 - listed,
      holds_omitted: 0,
    });
    const event = socket.ofType("event").at(-1)?.event;
    expect(event).to.include({ type: "session.summary", count: 400, reps_omitted: 400 - listed });
    const stored = await waitForStatus(tenant, session.session_id, "completed");
    expect(stored.terminal_outcome).to.equal(end.terminal_outcome);
    expect(await storedChunks(session.session_id)).to.equal(0);

    // The state a session keeps is reported: every checkpoint of this replica under 16 KiB.
    const adminUrl = system.services.detection.adminUrl;
    const count = await replicaMetric(adminUrl, "detection_checkpoint_bytes_count");
    expect(count).to.be.above(10);
    expect(
      await replicaMetric(adminUrl, "detection_checkpoint_bytes_bucket", 'le="16384"'),
    ).to.equal(count);
  });

  it("finalized through the API after the client left: every repetition, from the checkpoint and the stored records", async () => {
    const frames = looped(10); // 100 repetitions: the summary fits whole
    const session = await createSession(tenant, { movespec_id: movespecId, mode: "replay" });
    const socket = await attach(session.stream_url, session.runtime_token);
    await stream(socket, frames);
    socket.close();
    await socket.closed();
    expect((await checkpointOf(session.session_id))?.record_chunks).to.be.above(0);
    const finalized = await tenant.call(
      "POST",
      `/api/detection/sessions/${session.session_id}/finalize`,
    );
    expect(finalized.status).to.equal(200);
    const completed = await waitForStatus(tenant, session.session_id, "completed");
    const expected = engineSummary(frames);
    expect(expected.count).to.equal(100);
    expect(JSON.parse(completed.terminal_outcome)).to.deep.equal(expected);
    expect(await storedChunks(session.session_id)).to.equal(0);
  });
});
