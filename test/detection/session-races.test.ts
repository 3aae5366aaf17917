/**
 * Detection sessions under concurrent requests, through the gateway: one Idempotency-Key fired
 * many times at once, many websockets attaching one session at once, and finalize racing
 * attachments and frames. Each test asserts the contract's invariant (one session, one owner,
 * one end, one summary), never a timing.
 */
import { expect } from "chai";
import { readFrames } from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { openRaw, type RawStream } from "./support/raw-stream.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  getSession,
  type PublishedMoveSpec,
  publishMoveSpec,
  type TestTenant,
  waitForStatus,
} from "./support/session-api.js";

const FRAMES = readFrames("m01_s01");
const QUOTA = 20;

describe("detection sessions: concurrent requests", function () {
  this.timeout(60_000);
  let system: TestSystem;

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({
      serviceEnv: {
        detection: {
          DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: String(QUOTA),
          DETECTION_CHECKPOINT_INTERVAL_MS: "200",
          DETECTION_SWEEP_INTERVAL_MS: "200",
        },
      },
    });
  });

  after(async () => {
    await system?.stop();
  });

  async function freshTenant(): Promise<{ tenant: TestTenant; spec: PublishedMoveSpec }> {
    const tenant = await createTenant(system);
    return { tenant, spec: await publishMoveSpec(tenant, exampleYaml("squat")) };
  }

  it("one Idempotency-Key fired 10 times at once admits one session, answered 10 times", async () => {
    const { tenant, spec } = await freshTenant();
    const body = { project_id: tenant.projectId, movespec_id: spec.movespecId, mode: "replay" };
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        tenant.call("POST", "/api/detection/sessions", body, { "idempotency-key": "burst" }),
      ),
    );
    for (const response of burst) {
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
    }
    const ids = new Set(burst.map((response) => response.body.session_id));
    expect(ids.size).to.equal(1);
    // One session holds one slot of the quota: QUOTA - 1 more fit, one more does not.
    await Promise.all(
      Array.from({ length: QUOTA - 1 }, () =>
        createSession(tenant, { movespec_id: spec.movespecId }),
      ),
    );
    const over = await tenant.call("POST", "/api/detection/sessions", {
      project_id: tenant.projectId,
      movespec_id: spec.movespecId,
    });
    expect(over.status).to.equal(429);
  });

  /** Opens `count` websockets to one session and says hello on all of them at once. */
  async function attachAtOnce(url: string, token: string, count: number): Promise<RawStream[]> {
    const streams = await Promise.all(Array.from({ length: count }, () => openRaw(url)));
    for (const stream of streams) stream.send({ type: "hello", runtime_token: token });
    return streams;
  }

  /** Resolves once every stream either got `ready` and is still open, or closed. */
  async function settled(streams: RawStream[]): Promise<void> {
    await Promise.all(
      streams.map(async (stream) => {
        await Promise.race([stream.next("ready", undefined, 20_000), stream.closed(20_000)]);
      }),
    );
  }

  it("eight websockets attaching one session at once: one owner, the others closed 4409", async () => {
    const { tenant, spec } = await freshTenant();
    const created = await createSession(tenant, { movespec_id: spec.movespecId, mode: "replay" });
    const streams = await attachAtOnce(created.stream_url, created.runtime_token, 8);
    await settled(streams);
    // Let every takeover finish: the owner is the one stream that is still open once the
    // others have all closed.
    const open = () => streams.filter((stream) => stream.ws.readyState === stream.ws.OPEN);
    const deadline = Date.now() + 15_000;
    while (open().length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const owners = open();
    expect(owners, "streams still open").to.have.length(1);
    const [owner] = owners;
    for (const stream of streams) {
      if (stream === owner) continue;
      const { code } = await stream.closed();
      expect(code, JSON.stringify(stream.messages)).to.be.oneOf([4409, 1013]);
    }
    owner.send({ type: "frames", frames: FRAMES.slice(0, 40) });
    owner.send({ type: "finalize" });
    const end = await owner.next("end");
    expect(end).to.include({ status: "completed", accepted_frames_total: 40 });
    const summaries = streams.flatMap((stream) =>
      stream.ofType("event").filter((m) => m.event.type === "session.summary"),
    );
    expect(summaries).to.have.length(1);
    const done = await getSession(tenant, created.session_id);
    expect(done).to.include({ status: "completed", accepted_frames_total: 40 });
  });

  it("finalize through the API racing attachments: one end, at most one summary, counts agree", async () => {
    const { tenant, spec } = await freshTenant();
    for (let round = 0; round < 3; round += 1) {
      const created = await createSession(tenant, { movespec_id: spec.movespecId, mode: "replay" });
      const first = await openRaw(created.stream_url);
      first.send({ type: "hello", runtime_token: created.runtime_token });
      await first.next("ready");
      first.send({ type: "frames", frames: FRAMES.slice(0, 40) });
      await first.next("ack", (ack) => ack.accepted_frames_total === 40);
      const finalizeCall = () =>
        tenant.call("POST", `/api/detection/sessions/${created.session_id}/finalize`);
      const [streams, ...finalized] = await Promise.all([
        attachAtOnce(created.stream_url, created.runtime_token, 3),
        finalizeCall(),
        finalizeCall(),
      ]);
      for (const response of finalized) {
        expect(response.status, JSON.stringify(response.body)).to.be.oneOf([200, 409]);
      }
      const all = [first, ...streams];
      const done = await waitForStatus(tenant, created.session_id, "completed", 20_000);
      await Promise.all(all.map((stream) => stream.closed(20_000).catch(() => undefined)));
      const outcome = JSON.parse(done.terminal_outcome);
      expect(done.accepted_frames_total).to.equal(40);
      expect(outcome.frames).to.equal(40);
      const summaries = all.flatMap((stream) =>
        stream.ofType("event").filter((m) => m.event.type === "session.summary"),
      );
      expect(summaries.length, "summaries sent").to.be.at.most(1);
      const ends = all.flatMap((stream) => stream.ofType("end"));
      for (const end of ends) expect(end.terminal_outcome).to.equal(done.terminal_outcome);
      for (const stream of all) if (stream.ws.readyState === stream.ws.OPEN) stream.close();
    }
  });

  it("finalize through the API as the only client attaches: it gets the summary and end, never 4409", async () => {
    const { tenant, spec } = await freshTenant();
    const sessions = await Promise.all(
      Array.from({ length: QUOTA }, () =>
        createSession(tenant, { movespec_id: spec.movespecId, mode: "replay" }),
      ),
    );
    const streams = await Promise.all(sessions.map((session) => openRaw(session.stream_url)));
    // Each hello and its session's finalize leave together, a little later for each session, so
    // that some finalizes land before, some during and some after the attach.
    await Promise.all(
      sessions.map(async (session, i) => {
        streams[i].send({ type: "hello", runtime_token: session.runtime_token });
        await new Promise((resolve) => setTimeout(resolve, i));
        const finalized = await tenant.call(
          "POST",
          `/api/detection/sessions/${session.session_id}/finalize`,
        );
        expect(finalized.status, JSON.stringify(finalized.body)).to.equal(200);
      }),
    );
    const outcomes = await Promise.all(
      sessions.map(async (session, i) => {
        const done = await waitForStatus(tenant, session.session_id, "completed", 20_000);
        const stream = streams[i];
        const { code } = await stream.closed(20_000);
        const summaries = stream.ofType("event").filter((m) => m.event.type === "session.summary");
        return {
          ready: stream.ofType("ready").length,
          code,
          ends: stream.ofType("end").length,
          summaries: summaries.length,
          sameOutcome: stream.ofType("end")[0]?.terminal_outcome === done.terminal_outcome,
        };
      }),
    );
    for (const outcome of outcomes) {
      const what = JSON.stringify(outcome);
      // Attached in time: the replica completes it for the client (summary, end, 1000). Too late:
      // the session had ended, so end and 4410. Never "replaced" with no other attachment.
      if (outcome.ready === 1) {
        expect(outcome, what).to.include({ code: 1000, ends: 1, summaries: 1, sameOutcome: true });
      } else {
        expect(outcome, what).to.include({ code: 4410, ends: 1, summaries: 0, sameOutcome: true });
      }
    }
  });
});
