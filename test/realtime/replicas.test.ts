/**
 * Detection at scale (issue 8) and process restarts (issue 7): two replicas behind the gateway.
 * A replica killed mid-stream loses no acknowledged frame and no event: its sessions resume on
 * the other from their last checkpoint. Two attachments of one session through different
 * replicas: exactly one processes at any moment, the newer wins. A restarted process takes
 * sessions over; a session whose client never returns ends (cancelled), never stuck; a
 * checkpoint that cannot be restored ends the session `failed` with a clear error_code.
 */

import { type DetectionEvent, StreamClient } from "@movement-detection/sdk";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import type { ManagedProcess } from "../../deploy/local/child-process.js";
import { playFrames } from "../../examples/stream-client/recording.js";
import {
  directStream,
  replicaMetric,
  restartDetection,
} from "../detection/support/detection-process.js";
import { attach, openRaw } from "../detection/support/raw-stream.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  getSession,
  type PublishedMoveSpec,
  publishMoveSpec,
  type TestTenant,
  waitForStatus,
} from "../detection/support/session-api.js";
import {
  loadExample,
  MOVEMENT_SPECS,
  readFrames,
  readManifest,
  runFrames,
} from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const DETECTION_ENV = {
  DETECTION_REPLICA_TTL_MS: "1500",
  DETECTION_CHECKPOINT_INTERVAL_MS: "200",
  // Longer than a replica's restart and its clients' reconnection on a slow, busy machine (the
  // only replica killed, below): idle that long, a session is cancelled by the sweeper.
  DETECTION_IDLE_TIMEOUT_MS: "10000",
  DETECTION_SWEEP_INTERVAL_MS: "300",
  DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100",
};

describe("detection replicas: leases, failover and restarts", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let tenant: TestTenant;
  const specs = new Map<string, PublishedMoveSpec>();
  const restarted: ManagedProcess[] = [];

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({
      detectionReplicas: 2,
      serviceEnv: { detection: DETECTION_ENV },
    });
    tenant = await createTenant(system);
    for (const name of ["squat", "shoulder-abduction"]) {
      specs.set(name, await publishMoveSpec(tenant, exampleYaml(name), { name }));
    }
  });

  after(async () => {
    await Promise.all(restarted.map((child) => child.stop(5000)));
    await system?.stop();
  });

  interface Streaming {
    readonly id: string;
    readonly sessionId: string;
    readonly events: DetectionEvent[];
    readonly client: StreamClient;
    readonly done: Promise<{ status: string; accepted_frames_total: number }>;
  }

  /** Streams a recording through the gateway at `speed` times real time, then finalizes. */
  async function startStreaming(id: string, speed: number): Promise<Streaming> {
    const spec = specs.get(MOVEMENT_SPECS[id.slice(0, 3)]) as PublishedMoveSpec;
    const created = await createSession(tenant, { movespec_id: spec.movespecId, mode: "live" });
    const events: DetectionEvent[] = [];
    const client = new StreamClient({
      streamUrl: created.stream_url,
      runtimeToken: created.runtime_token,
      batchSize: 3,
      onEvent: (event) => events.push(event),
    });
    await client.connect();
    const done = (async () => {
      await playFrames(readFrames(id), (frame) => client.send(frame), { pace: "live", speed });
      return client.finalize();
    })();
    return { id, sessionId: created.session_id, events, client, done };
  }

  async function expectExact(stream: Streaming): Promise<void> {
    const end = await stream.done;
    const frames = readFrames(stream.id);
    const expected = runFrames(loadExample(MOVEMENT_SPECS[stream.id.slice(0, 3)]), frames);
    expect(end, stream.id).to.include({
      status: "completed",
      accepted_frames_total: frames.length,
    });
    // No event lost, none twice (the client drops repeats by event_seq), all as the engine says.
    expect(stream.events, stream.id).to.deep.equal(JSON.parse(JSON.stringify(expected)));
    expect(stream.events.filter((e) => e.type === "rep.completed")).to.have.length(
      readManifest(stream.id).expected_repetitions,
    );
    const session = await getSession(tenant, stream.sessionId);
    expect(session).to.include({ status: "completed", accepted_frames_total: frames.length });
  }

  const attachedOn = (index: number) =>
    replicaMetric(system.detectionReplicas[index].adminUrl, "detection_attached_sessions");

  it("a replica killed mid-stream: every session resumes on the other with the right counts", async () => {
    const ids = ["m01_s01", "m01_s02", "m07_s01", "m07_s02", "m01_s03", "m07_s03"];
    const streams = await Promise.all(ids.map((id) => startStreaming(id, 3)));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // The gateway spread the streams over both replicas.
    expect(await attachedOn(0)).to.be.greaterThan(0);
    expect(await attachedOn(1)).to.be.greaterThan(0);
    system.detectionReplicas[0].process.child.kill("SIGKILL");
    await Promise.all(streams.map((stream) => expectExact(stream)));
    expect(streams.filter((stream) => stream.client.reconnects > 0).length).to.be.greaterThan(0);
    expect(await attachedOn(1)).to.equal(0);
  });

  it("a restarted process takes over the sessions of a replica that dies after it", async () => {
    restarted.push(await restartDetection(system, 0, DETECTION_ENV));
    const streams = await Promise.all(
      ["m10_s01", "m01_s01", "m10_s02", "m01_s02"].map((id) => startStreaming(id, 3)),
    );
    await new Promise((resolve) => setTimeout(resolve, 2500));
    system.detectionReplicas[1].process.child.kill("SIGKILL");
    await Promise.all(streams.map((stream) => expectExact(stream)));
  });

  it("two attachments through different replicas: the newer wins, the older is closed 4409", async () => {
    // Replica 1 was killed above: bring it back first.
    restarted.push(await restartDetection(system, 1, DETECTION_ENV));
    const squat = specs.get("squat") as PublishedMoveSpec;
    const session = await createSession(tenant, { movespec_id: squat.movespecId, mode: "replay" });
    const frames = readFrames("m01_s01");
    const viaA = await directStream(
      system,
      system.detectionReplicas[0].grpcUrl,
      session.session_id,
    );
    const viaB = await directStream(
      system,
      system.detectionReplicas[1].grpcUrl,
      session.session_id,
    );

    const first = await attach(viaA, session.runtime_token);
    first.send({ type: "frames", frames: frames.slice(0, 40) });
    await first.next("ack", (ack) => ack.last_seq === 39);
    let replacedAt = 0;
    first.ws.on("message", (data) => {
      if (JSON.parse(data.toString()).code === "REPLACED") replacedAt = performance.now();
    });
    const second = await attach(viaB, session.runtime_token);
    const readyAt = performance.now();
    expect((await first.closed()).code).to.equal(4409);
    expect(replacedAt, "the older was stopped before the newer was ready").to.be.greaterThan(0);
    expect(replacedAt).to.be.at.most(readyAt);
    expect(second.ofType("ready")[0]).to.include({ last_seq: 39, accepted_frames_total: 40 });

    // And back: a third attachment through A replaces the one on B.
    second.send({ type: "frames", frames: frames.slice(0, 40) });
    second.send({ type: "frames", frames: frames.slice(40, 80) });
    await second.next("ack", (ack) => ack.last_seq === 79);
    const third = await attach(viaA, session.runtime_token);
    expect((await second.closed()).code).to.equal(4409);
    expect(third.ofType("ready")[0]).to.include({ last_seq: 79, accepted_frames_total: 80 });
    third.send({ type: "frames", frames: frames.slice(60, 100) });
    third.send({ type: "finalize" });
    expect(await third.next("end")).to.include({ status: "completed", accepted_frames_total: 100 });
  });

  it("a session whose replica dies and whose client never returns is cancelled, not left streaming", async () => {
    const squat = specs.get("squat") as PublishedMoveSpec;
    const session = await createSession(tenant, { movespec_id: squat.movespecId, mode: "replay" });
    const frames = readFrames("m01_s01");
    // Through replica 1 (the restarted one), which then dies with the client still attached.
    const stream = await attach(
      await directStream(system, system.detectionReplicas[1].grpcUrl, session.session_id),
      session.runtime_token,
    );
    stream.send({ type: "frames", frames: frames.slice(0, 50) });
    await stream.next("ack", (ack) => ack.last_seq === 49);
    (restarted.at(-1) as ManagedProcess).child.kill("SIGKILL");
    const cancelled = await waitForStatus(tenant, session.session_id, "cancelled", 20_000);
    expect(cancelled).to.include({ error_code: "IDLE_TIMEOUT", accepted_frames_total: 50 });
    expect(JSON.parse(cancelled.terminal_outcome)).to.include({ frames: 50 });
  });

  it("a checkpoint that cannot be restored ends the session failed, with CHECKPOINT_UNUSABLE", async () => {
    const squat = specs.get("squat") as PublishedMoveSpec;
    const session = await createSession(tenant, { movespec_id: squat.movespecId, mode: "replay" });
    const stream = await attach(session.stream_url, session.runtime_token);
    stream.send({ type: "frames", frames: readFrames("m01_s01").slice(0, 10) });
    await stream.next("ack", (ack) => ack.last_seq === 9);
    stream.close();
    await stream.closed();
    const mongo = new MongoClient(system.mongodbUri);
    try {
      const sessions = mongo.db("mds_detection").collection<{ _id: string }>("sessions");
      const changed = await sessions.updateOne(
        { _id: session.session_id },
        { $set: { "checkpoint.engine": '{"format":"something else"}' } },
      );
      expect(changed.modifiedCount).to.equal(1);
    } finally {
      await mongo.close();
    }
    const again = await openRaw(session.stream_url);
    again.send({ type: "hello", runtime_token: session.runtime_token });
    expect((await again.closed()).code).to.equal(1011);
    expect(again.ofType("error")[0]).to.include({ code: "CHECKPOINT_UNUSABLE" });
    const failed = await waitForStatus(tenant, session.session_id, "failed");
    expect(failed).to.include({ error_code: "CHECKPOINT_UNUSABLE", accepted_frames_total: 10 });
  });
  it("the only live replica killed and restarted mid-stream: its sessions resume from their checkpoints", async function () {
    this.timeout(90_000);
    // Replica 1 is down since the test above: replica 0 (restarted once already) serves alone.
    const streams = await Promise.all(["m01_s02", "m07_s03"].map((id) => startStreaming(id, 3)));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const only = restarted[0];
    only.child.kill("SIGKILL");
    await only.exited;
    // The restart takes the dead incarnation's leases at once (it now holds its address).
    restarted.push(await restartDetection(system, 0, DETECTION_ENV));
    await Promise.all(streams.map((stream) => expectExact(stream)));
    expect(streams.every((stream) => stream.client.reconnects > 0)).to.equal(true);
  });
});
