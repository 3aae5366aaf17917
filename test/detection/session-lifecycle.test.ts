/**
 * Detection sessions through the gateway: admission (selectors, contract negotiation, quota,
 * scopes, idempotency) and every lifecycle transition and timeout, with short configured
 * timeouts (contract, "Detection sessions").
 */

import { createIdGenerator, newId } from "@movement-detection/shared/ids";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { readFrames } from "../movespec/support/recordings.js";
import { api } from "../movespecs/support/api.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { attach, openRaw } from "./support/raw-stream.js";
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

const LIMITS = {
  DETECTION_ATTACH_TIMEOUT_MS: "1500",
  DETECTION_IDLE_TIMEOUT_MS: "1500",
  DETECTION_MAX_DURATION_MS: "5000",
  DETECTION_MAX_FRAMES: "600",
  DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "5",
  DETECTION_SWEEP_INTERVAL_MS: "200",
  DETECTION_CHECKPOINT_INTERVAL_MS: "200",
};
const SQUAT_FRAMES = readFrames("m01_s01");
/** BODY_LIMIT_BYTES and DETECTION_MAX_MESSAGE_BYTES of the second system: small, to reach cheaply (a MoveSpec must still fit). */
const SMALL_LIMIT_BYTES = 8192;
/** SESSION_CREATIONS_QUEUED of the second system. */
const CREATIONS_QUEUED = 2;

describe("detection sessions: admission and lifecycle", function () {
  this.timeout(30_000);
  let system: TestSystem;
  let tenant: TestTenant;
  let squat: PublishedMoveSpec;

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({ serviceEnv: { detection: LIMITS } });
    tenant = await createTenant(system);
    squat = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
  });

  after(async () => {
    await system?.stop();
  });

  /** A tenant of its own, so that the quota of 5 is not shared between tests. */
  async function freshTenant(): Promise<{ tenant: TestTenant; spec: PublishedMoveSpec }> {
    const own = await createTenant(system);
    return { tenant: own, spec: await publishMoveSpec(own, exampleYaml("squat")) };
  }

  async function post(body: Record<string, unknown>, who: TestTenant = tenant) {
    return who.call("POST", "/api/detection/sessions", { project_id: who.projectId, ...body });
  }

  describe("POST /api/detection/sessions", () => {
    // Sessions made here linger (created) until the attach timeout: a project per test keeps
    // each test within the quota.
    beforeEach(async () => {
      tenant = await createTenant(system);
      squat = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
    });

    it("admits a session on a MoveSpec's released version, with a runtime token and the stream URL", async () => {
      const response = await post({ movespec_id: squat.movespecId, mode: "replay" });
      expect(response.status).to.equal(201);
      const body = response.body;
      expect(body).to.include({
        project_id: tenant.projectId,
        resolved_movespec_version_id: squat.versionId,
        mode: "replay",
        status: "created",
        input_schema_version: "pose-frame.v1",
        output_schema_version: "detection-event.v1",
      });
      expect(body.session_id).to.match(/^[0-9a-f-]{36}$/);
      expect(body.runtime_token).to.be.a("string");
      const gateway = new URL(system.gatewayUrl);
      expect(body.stream_url).to.equal(
        `ws://${gateway.host}/api/detection/sessions/${body.session_id}/stream`,
      );
      const session = await getSession(tenant, body.session_id);
      expect(session).to.deep.include({
        status: "created",
        accepted_frames_total: 0,
        mode: "replay",
      });
      expect(session).to.not.have.any.keys(
        "started_at",
        "ended_at",
        "error_code",
        "terminal_outcome",
      );
    });

    it("defaults to live and the newest contract; refuses other contracts with the supported list", async () => {
      const plain = await post({ movespec_id: squat.movespecId });
      expect(plain.status).to.equal(201);
      expect(plain.body.mode).to.equal("live");
      expect((await post({ movespec_id: squat.movespecId, contract_major: 1 })).status).to.equal(
        201,
      );
      const two = await post({ movespec_id: squat.movespecId, contract_major: 2 });
      expect(two.status).to.equal(400);
      expect(two.body.error.code).to.equal("invalid_argument");
      expect(two.body.error.details).to.deep.include({
        reason: "CONTRACT_UNSUPPORTED",
        supported: [1],
      });
      const text = await post({ movespec_id: squat.movespecId, contract_major: "1" });
      expect(text.body.error.details).to.include({
        reason: "FIELD_INVALID",
        field: "contract_major",
      });
      // Any 32-bit integer is the service's to judge; beyond, the field is out of range (before,
      // the message named -1, a value the client never sent).
      const edge = await post({ movespec_id: squat.movespecId, contract_major: 2 ** 31 - 1 });
      expect(edge.body.error.details.reason).to.equal("CONTRACT_UNSUPPORTED");
      expect(edge.body.error.message).to.contain(String(2 ** 31 - 1));
      for (const outside of [2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2]) {
        const beyond = await post({ movespec_id: squat.movespecId, contract_major: outside });
        expect(beyond.status, String(outside)).to.equal(400);
        expect(beyond.body.error.details, String(outside)).to.include({
          reason: "LIMIT_OUT_OF_RANGE",
          field: "contract_major",
          min: -(2 ** 31),
          max: 2 ** 31 - 1,
        });
        expect(beyond.body.error.message, String(outside)).to.not.contain("-1 ");
      }
      const mode = await post({ movespec_id: squat.movespecId, mode: "fast" });
      expect(mode.body.error.details).to.include({ reason: "FIELD_INVALID", field: "mode" });
    });

    it("selects a version by movespec_version_id; with both selectors the version wins and must belong", async () => {
      const { tenant: own, spec } = await freshTenant();
      // Version 2, not released: only reachable by its id.
      const put = await own.call("PUT", `/api/movespecs/${spec.movespecId}/draft`, {
        yaml_source: exampleYaml("squat").replace("name: Squat", "name: Squat v2"),
      });
      expect(put.status).to.equal(200);
      const v2 = (await own.call("POST", `/api/movespecs/${spec.movespecId}/versions`)).body
        .movespec_version_id as string;
      const byVersion = await post({ movespec_version_id: v2 }, own);
      expect(byVersion.body.resolved_movespec_version_id).to.equal(v2);
      const byMoveSpec = await post({ movespec_id: spec.movespecId }, own);
      expect(byMoveSpec.body.resolved_movespec_version_id).to.equal(spec.versionId);
      const both = await post({ movespec_id: spec.movespecId, movespec_version_id: v2 }, own);
      expect(both.body.resolved_movespec_version_id).to.equal(v2);
      const other = await publishMoveSpec(own, exampleYaml("lunge"));
      const mismatch = await post({ movespec_id: other.movespecId, movespec_version_id: v2 }, own);
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.error.details.reason).to.equal("VERSION_NOT_IN_MOVESPEC");
    });

    it("needs a selector, a released version, and a MoveSpec of the project or a public one", async () => {
      const none = await post({});
      expect(none.status).to.equal(400);
      expect(none.body.error.details).to.include({ reason: "FIELD_REQUIRED" });
      const unreleased = await publishMoveSpec(tenant, exampleYaml("squat"), { release: false });
      const noRelease = await post({ movespec_id: unreleased.movespecId });
      expect(noRelease.status).to.equal(409);
      expect(noRelease.body.error.details.reason).to.equal("NO_RELEASED_VERSION");
      const unknown = await post({ movespec_id: "01900000-0000-7000-8000-000000000000" });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.details.reason).to.equal("MOVESPEC_NOT_FOUND");
      const notUuid = await post({ movespec_id: "squat" });
      expect(notUuid.status).to.equal(400);
      expect(notUuid.body.error.details).to.include({
        reason: "FIELD_INVALID",
        field: "movespec_id",
      });

      const stranger = await createTenant(system);
      const privateSpec = await post({ movespec_id: squat.movespecId }, stranger);
      expect(privateSpec.status).to.equal(404);
      expect(privateSpec.body.error.details.reason).to.equal("MOVESPEC_NOT_FOUND");
      const privateVersion = await post({ movespec_version_id: squat.versionId }, stranger);
      expect(privateVersion.status).to.equal(404);
      const shared = await publishMoveSpec(tenant, exampleYaml("squat"), { visibility: "public" });
      const publicSpec = await post({ movespec_id: shared.movespecId }, stranger);
      expect(publicSpec.status, JSON.stringify(publicSpec.body)).to.equal(201);
      expect(publicSpec.body.project_id).to.equal(stranger.projectId);
    });

    it("binds the session to the token's project and checks scopes", async () => {
      const missing = await tenant.call("POST", "/api/detection/sessions", {
        movespec_id: squat.movespecId,
      });
      expect(missing.body.error.details).to.include({
        reason: "FIELD_REQUIRED",
        field: "project_id",
      });
      const stranger = await createTenant(system);
      const foreign = await post({ project_id: stranger.projectId, movespec_id: squat.movespecId });
      expect(foreign.status).to.equal(403);
      expect(foreign.body.error.details.reason).to.equal("PROJECT_MISMATCH");
      const anonymous = await api(system.gatewayUrl, "POST", "/api/detection/sessions", {
        body: { project_id: tenant.projectId, movespec_id: squat.movespecId },
      });
      expect(anonymous.status).to.equal(401);
      const reader = await createTenant(system, { scopes: ["sessions:read"] });
      const readOnly = await post({ movespec_id: squat.movespecId }, reader);
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body.error.details.reason).to.equal("SCOPE_MISSING");

      const created = await createSession(tenant, { movespec_id: squat.movespecId });
      const writer = await createTenant(system, { scopes: ["sessions:write"] });
      const noRead = await writer.call("GET", `/api/detection/sessions/${created.session_id}`);
      expect(noRead.status).to.equal(403);
      // An id of now that no session has (an id older than the retention would be
      // SESSION_EXPIRED: the retention test below).
      for (const path of [created.session_id, newId(), "not-a-uuid"]) {
        const hidden = await stranger.call("GET", `/api/detection/sessions/${path}`);
        expect(hidden.status, path).to.equal(404);
        expect(hidden.body.error.details.reason).to.equal("SESSION_NOT_FOUND");
      }
      const finalizeForeign = await stranger.call(
        "POST",
        `/api/detection/sessions/${created.session_id}/finalize`,
      );
      expect(finalizeForeign.status).to.equal(404);
    });

    it("enforces the concurrent session quota per project, with Retry-After", async () => {
      const { tenant: own, spec } = await freshTenant();
      const admitted = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7].map(() => post({ movespec_id: spec.movespecId }, own)),
      );
      const statuses = admitted.map((response) => response.status).sort();
      expect(statuses.filter((status) => status === 201)).to.have.length.at.most(5);
      expect(statuses.filter((status) => status === 429)).to.have.length.at.least(2);
      while (admitted.filter((r) => r.status === 201).length < 5) {
        admitted.push(await post({ movespec_id: spec.movespecId }, own));
      }
      const refused = await post({ movespec_id: spec.movespecId }, own);
      expect(refused.status).to.equal(429);
      expect(refused.body.error).to.include({ code: "resource_exhausted", retryable: true });
      expect(refused.body.error.details.reason).to.equal("SESSION_QUOTA_EXCEEDED");
      expect(refused.headers.get("retry-after")).to.match(/^\d+$/);
      // Another project is not affected; a session that ends frees a slot.
      expect((await post({ movespec_id: squat.movespecId })).status).to.equal(201);
      const first = admitted.find((r) => r.status === 201)?.body.session_id as string;
      await own.call("POST", `/api/detection/sessions/${first}/finalize`);
      await waitForStatus(own, first, "completed");
      expect((await post({ movespec_id: spec.movespecId }, own)).status).to.equal(201);
    });

    it("replays an Idempotency-Key's response and refuses the key for another body", async () => {
      const key = `key-${Date.now()}`;
      const first = await tenant.call(
        "POST",
        "/api/detection/sessions",
        { project_id: tenant.projectId, movespec_id: squat.movespecId, mode: "replay" },
        { "idempotency-key": key },
      );
      const again = await tenant.call(
        "POST",
        "/api/detection/sessions",
        { mode: "replay", movespec_id: squat.movespecId, project_id: tenant.projectId },
        { "idempotency-key": key },
      );
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.session_id).to.equal(first.body.session_id);
      // The repeat's (fresh) runtime token attaches to the same session.
      const stream = await attach(again.body.stream_url, again.body.runtime_token);
      expect(stream.ofType("ready")[0].session_id).to.equal(first.body.session_id);
      stream.close();
      const reused = await tenant.call(
        "POST",
        "/api/detection/sessions",
        { project_id: tenant.projectId, movespec_id: squat.movespecId, mode: "live" },
        { "idempotency-key": key },
      );
      expect(reused.status).to.equal(409);
      expect(reused.body.error.details.reason).to.equal("IDEMPOTENCY_KEY_REUSED");
      // The key's length at the edge, through the detection service's own idempotency store.
      const body = { project_id: tenant.projectId, movespec_id: squat.movespecId, mode: "replay" };
      const longest = { "idempotency-key": "k".repeat(255) };
      const atLimit = await tenant.call("POST", "/api/detection/sessions", body, longest);
      expect(atLimit.status, JSON.stringify(atLimit.body)).to.equal(201);
      const repeated = await tenant.call("POST", "/api/detection/sessions", body, longest);
      expect(repeated.body.session_id).to.equal(atLimit.body.session_id);
      const tooLong = await tenant.call("POST", "/api/detection/sessions", body, {
        "idempotency-key": "k".repeat(256),
      });
      expect(tooLong.status).to.equal(400);
      expect(tooLong.body.error.details).to.include({
        reason: "FIELD_INVALID",
        field: "Idempotency-Key",
      });
    });
  });

  describe("lifecycle", () => {
    it("created -> streaming on the first accepted frame, -> finalizing -> completed by the stream's finalize", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      expect((await getSession(tenant, created.session_id)).status).to.equal("created");
      for (const frame of SQUAT_FRAMES.slice(0, 100)) stream.send({ type: "frame", ...frame });
      await stream.next("ack", (ack) => ack.accepted_frames_total === 100);
      const streaming = await getSession(tenant, created.session_id);
      expect(streaming).to.include({ status: "streaming", accepted_frames_total: 100 });
      expect(streaming.started_at).to.be.a("string");
      stream.send({ type: "finalize" });
      const end = await stream.next("end");
      expect(end).to.include({ status: "completed", accepted_frames_total: 100 });
      expect(stream.ofType("event").at(-1)?.event.type).to.equal("session.summary");
      expect((await stream.closed()).code).to.equal(1000);
      const done = await getSession(tenant, created.session_id);
      expect(done).to.include({ status: "completed", accepted_frames_total: 100 });
      expect(JSON.parse(done.terminal_outcome)).to.include({ frames: 100 });
    });

    it("finalize from created completes with an empty summary; again it is 409 SESSION_TERMINAL", async () => {
      const created = await createSession(tenant, { movespec_id: squat.movespecId });
      const [a, b] = await Promise.all([
        tenant.call("POST", `/api/detection/sessions/${created.session_id}/finalize`),
        tenant.call("POST", `/api/detection/sessions/${created.session_id}/finalize`),
      ]);
      // Both are answered with the session; one of them made the transition, the other found it made.
      for (const response of [a, b]) {
        expect(response.status, JSON.stringify(response.body)).to.be.oneOf([200, 409]);
      }
      expect(
        [a, b].some((response) => response.status === 200 && response.body.status === "finalizing"),
      ).to.equal(true);
      const done = await waitForStatus(tenant, created.session_id, "completed");
      expect(done.accepted_frames_total).to.equal(0);
      expect(JSON.parse(done.terminal_outcome)).to.include({ count: 0, frames: 0 });
      const terminal = await tenant.call(
        "POST",
        `/api/detection/sessions/${created.session_id}/finalize`,
      );
      expect(terminal.status).to.equal(409);
      expect(terminal.body.error.details.reason).to.equal("SESSION_TERMINAL");
    });

    it("finalize through the API while attached: the client gets the summary and end", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(0, 40) });
      await stream.next("ack", (ack) => ack.last_seq === 39);
      const finalized = await tenant.call(
        "POST",
        `/api/detection/sessions/${created.session_id}/finalize`,
      );
      expect(finalized.status).to.equal(200);
      expect(finalized.body).to.include({ status: "finalizing", accepted_frames_total: 40 });
      expect(await stream.next("end")).to.include({
        status: "completed",
        accepted_frames_total: 40,
      });
      expect((await stream.closed()).code).to.equal(1000);
      expect(await getSession(tenant, created.session_id)).to.include({
        status: "completed",
        accepted_frames_total: 40,
      });
      // Reattaching a terminal session: its end again, then 4410.
      const late = await openRaw(created.stream_url);
      late.send({ type: "hello", runtime_token: created.runtime_token });
      expect(await late.next("end")).to.include({ status: "completed" });
      expect((await late.closed()).code).to.equal(4410);
    });

    it("finalize of a detached streaming session completes from its checkpoint", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(0, 45) });
      await stream.next("ack", (ack) => ack.last_seq === 44);
      stream.close();
      await stream.closed();
      const finalized = await tenant.call(
        "POST",
        `/api/detection/sessions/${created.session_id}/finalize`,
      );
      expect(finalized.body.status).to.be.oneOf(["finalizing", "completed"]);
      const done = await waitForStatus(tenant, created.session_id, "completed");
      expect(done.accepted_frames_total).to.equal(45);
      expect(JSON.parse(done.terminal_outcome)).to.include({ frames: 45 });
    });

    it("cancels a session never attached within the attach timeout", async () => {
      const created = await createSession(tenant, { movespec_id: squat.movespecId });
      const cancelled = await waitForStatus(tenant, created.session_id, "cancelled", 8000);
      expect(cancelled).to.include({ error_code: "ATTACH_TIMEOUT", accepted_frames_total: 0 });
      expect(cancelled.ended_at).to.be.a("string");
      const finalize = await tenant.call(
        "POST",
        `/api/detection/sessions/${created.session_id}/finalize`,
      );
      expect(finalize.body.error.details.reason).to.equal("SESSION_TERMINAL");
    });

    it("cancels an attached session idle past the idle timeout (error, end, 1000)", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(0, 30) });
      const error = await stream.next("error", undefined, 8000);
      expect(error.code).to.equal("IDLE_TIMEOUT");
      expect(await stream.next("end")).to.include({
        status: "cancelled",
        error_code: "IDLE_TIMEOUT",
        accepted_frames_total: 30,
      });
      expect((await stream.closed()).code).to.equal(1000);
      const cancelled = await getSession(tenant, created.session_id);
      expect(cancelled).to.include({
        status: "cancelled",
        error_code: "IDLE_TIMEOUT",
        accepted_frames_total: 30,
      });
      expect(JSON.parse(cancelled.terminal_outcome)).to.include({ frames: 30 });
    });

    it("cancels a detached session idle past the idle timeout (the sweeper)", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(0, 20) });
      await stream.next("ack", (ack) => ack.last_seq === 19);
      stream.ws.terminate();
      const cancelled = await waitForStatus(tenant, created.session_id, "cancelled", 8000);
      expect(cancelled).to.include({ error_code: "IDLE_TIMEOUT", accepted_frames_total: 20 });
      expect(JSON.parse(cancelled.terminal_outcome)).to.include({ frames: 20 });
    });

    it("takes exactly the frame limit: 600 frames and resends of them complete the session", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      for (let i = 0; i < 600; i += 40) {
        stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(i, i + 40) });
      }
      // Resends at the limit are the contract's safe retry, not a frame past it.
      stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(560, 600) });
      stream.send({ type: "finalize" });
      expect(await stream.next("end")).to.include({
        status: "completed",
        accepted_frames_total: 600,
      });
      expect((await stream.closed()).code).to.equal(1000);
      expect(stream.ofType("error")).to.deep.equal([]);
    });

    it("fails a session that reaches the frame limit (error, end, 1008)", async () => {
      const created = await createSession(tenant, {
        movespec_id: squat.movespecId,
        mode: "replay",
      });
      const stream = await attach(created.stream_url, created.runtime_token);
      for (let i = 0; i < SQUAT_FRAMES.length; i += 40) {
        stream.send({ type: "frames", frames: SQUAT_FRAMES.slice(i, i + 40) });
      }
      expect((await stream.next("error")).code).to.equal("FRAME_LIMIT_EXCEEDED");
      expect(await stream.next("end")).to.include({ status: "failed", accepted_frames_total: 600 });
      expect((await stream.closed()).code).to.equal(1008);
      expect(await getSession(tenant, created.session_id)).to.include({
        status: "failed",
        error_code: "FRAME_LIMIT_EXCEEDED",
        accepted_frames_total: 600,
      });
    });

    it("fails a session at its maximum duration, even while its client keeps it busy", async function () {
      this.timeout(30_000);
      const created = await createSession(tenant, { movespec_id: squat.movespecId });
      const stream = await attach(created.stream_url, created.runtime_token);
      const keepAlive = setInterval(() => stream.send({ type: "ping" }), 300);
      try {
        const error = await stream.next("error", undefined, 20_000);
        expect(error.code).to.equal("SESSION_MAX_DURATION_EXCEEDED");
        expect(await stream.next("end")).to.include({ status: "failed" });
        expect((await stream.closed()).code).to.equal(1008);
      } finally {
        clearInterval(keepAlive);
      }
      expect(stream.ofType("pong").length).to.be.greaterThan(0);
      expect(await getSession(tenant, created.session_id)).to.include({
        status: "failed",
        error_code: "SESSION_MAX_DURATION_EXCEEDED",
      });
    });
  });

  describe("retention (DETECTION_SESSION_RETENTION_DAYS: 30 days by default)", () => {
    const RETENTION_MS = 30 * 86_400_000;

    it("answers 404 SESSION_EXPIRED for a session ended the retention ago, and for ids that old", async () => {
      const created = await createSession(tenant, { movespec_id: squat.movespecId });
      const id = created.session_id;
      await tenant.call("POST", `/api/detection/sessions/${id}/finalize`);
      await waitForStatus(tenant, id, "completed");
      // The stored end is moved back (the store's TTL monitor may delete the session once it is
      // past the retention: the answer is the same either way).
      const mongo = new MongoClient(system.mongodbUri);
      const endedAgo = (ms: number) =>
        mongo
          .db("mds_detection")
          .collection<{ _id: string; ended_at?: Date }>("sessions")
          .updateOne({ _id: id }, { $set: { ended_at: new Date(Date.now() - ms) } });
      try {
        await endedAgo(RETENTION_MS - 60_000);
        expect((await getSession(tenant, id)).status).to.equal("completed");
        await endedAgo(RETENTION_MS);
      } finally {
        await mongo.close();
      }
      for (const path of [
        `/api/detection/sessions/${id}`,
        `/api/detection/sessions/${id}/finalize`,
      ]) {
        const response = await tenant.call(path.endsWith("finalize") ? "POST" : "GET", path);
        expect(response.status, path).to.equal(404);
        expect(response.body.error).to.include({ code: "not_found", retryable: false });
        expect(response.body.error.details).to.include({
          reason: "SESSION_EXPIRED",
          session_id: id,
          retention_days: 30,
        });
      }
      // Another project asking for it learns nothing: its id is recent, so plainly not found.
      const other = await createTenant(system);
      const foreign = await other.call("GET", `/api/detection/sessions/${id}`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error.details.reason).to.equal("SESSION_NOT_FOUND");
      // Unknown ids: one made the retention ago may name an expired session; a recent one cannot.
      const reasonFor = async (sessionId: string) =>
        (await tenant.call("GET", `/api/detection/sessions/${sessionId}`)).body.error.details
          .reason;
      expect(await reasonFor(createIdGenerator(() => Date.now() - RETENTION_MS)())).to.equal(
        "SESSION_EXPIRED",
      );
      expect(
        await reasonFor(createIdGenerator(() => Date.now() - RETENTION_MS + 60_000)()),
      ).to.equal("SESSION_NOT_FOUND");
    });
  });
});

describe("detection sessions: deadlines passed before the sweeper came round, and configured limits", function () {
  this.timeout(30_000);
  let system: TestSystem;
  let tenant: TestTenant;
  let squat: PublishedMoveSpec;

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({
      serviceEnv: {
        detection: {
          DETECTION_ATTACH_TIMEOUT_MS: "1000",
          DETECTION_IDLE_TIMEOUT_MS: "1000",
          // The sweeper does not come round during these tests: the attach must see the deadline.
          DETECTION_SWEEP_INTERVAL_MS: "600000",
          DETECTION_CHECKPOINT_INTERVAL_MS: "200",
          // Small configured limits, to see each one honoured end to end at its edge.
          DETECTION_MAX_MESSAGE_BYTES: String(SMALL_LIMIT_BYTES),
          DETECTION_LIVE_MAX_FPS: "5",
          DETECTION_LIVE_BURST_FRAMES: "10",
        },
        gateway: {
          BODY_LIMIT_BYTES: String(SMALL_LIMIT_BYTES),
          // One creation at a time and two waiting: a burst past that is refused.
          SESSION_CREATIONS_IN_FLIGHT: "1",
          SESSION_CREATIONS_QUEUED: String(CREATIONS_QUEUED),
        },
      },
    });
    tenant = await createTenant(system);
    squat = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
  });

  after(async () => {
    await system?.stop();
  });

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("an attach after the attach timeout ends the session: cancelled, end, 4410", async () => {
    const created = await createSession(tenant, { movespec_id: squat.movespecId });
    await pause(1300);
    const late = await openRaw(created.stream_url);
    late.send({ type: "hello", runtime_token: created.runtime_token });
    expect(await late.next("end")).to.include({
      status: "cancelled",
      error_code: "ATTACH_TIMEOUT",
    });
    expect((await late.closed()).code).to.equal(4410);
    expect(late.ofType("ready")).to.deep.equal([]);
    expect(await getSession(tenant, created.session_id)).to.include({
      status: "cancelled",
      error_code: "ATTACH_TIMEOUT",
    });
  });

  it("an attach after the idle timeout ends the detached session with its summary", async () => {
    const created = await createSession(tenant, { movespec_id: squat.movespecId, mode: "replay" });
    const first = await attach(created.stream_url, created.runtime_token);
    // One frame a message: a batch would pass this system's small message limit.
    for (const frame of SQUAT_FRAMES.slice(0, 20)) first.send({ type: "frame", ...frame });
    await first.next("ack", (ack) => ack.last_seq === 19);
    first.close();
    await first.closed();
    await pause(1300);
    const late = await openRaw(created.stream_url);
    late.send({ type: "hello", runtime_token: created.runtime_token });
    expect(await late.next("end")).to.include({
      status: "cancelled",
      error_code: "IDLE_TIMEOUT",
      accepted_frames_total: 20,
    });
    expect((await late.closed()).code).to.equal(4410);
    const cancelled = await getSession(tenant, created.session_id);
    expect(cancelled).to.include({ status: "cancelled", error_code: "IDLE_TIMEOUT" });
    expect(JSON.parse(cancelled.terminal_outcome)).to.include({ frames: 20 });
  });
  /** A JSON text of exactly `bytes` bytes, `head` first. */
  const padded = (head: string, bytes: number) =>
    `${head}"pad":"${"p".repeat(bytes - head.length - 9)}"}`;

  it("BODY_LIMIT_BYTES as configured: a body of that size is read, one byte more is 413", async () => {
    const head = `{"name":"limit","project_id":"${tenant.projectId}",`;
    const post = (body: string) =>
      fetch(`${system.gatewayUrl}/api/movespecs`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
        body,
      });
    expect(Buffer.byteLength(padded(head, SMALL_LIMIT_BYTES))).to.equal(SMALL_LIMIT_BYTES);
    expect((await post(padded(head, SMALL_LIMIT_BYTES))).status).to.equal(201);
    const over = await post(padded(head, SMALL_LIMIT_BYTES + 1));
    expect(over.status).to.equal(413);
    const { error } = (await over.json()) as { error: { details: Record<string, unknown> } };
    expect(error.details).to.include({ reason: "BODY_TOO_LARGE", limit_bytes: SMALL_LIMIT_BYTES });
  });

  it("DETECTION_MAX_MESSAGE_BYTES as configured: announced, taken at the edge, 1009 from the gateway past it", async () => {
    const created = await createSession(tenant, { movespec_id: squat.movespecId, mode: "replay" });
    const stream = await attach(created.stream_url, created.runtime_token);
    expect(stream.ofType("ready")[0].limits.max_message_bytes).to.equal(SMALL_LIMIT_BYTES);
    stream.sendText(padded('{"type":"ping",', SMALL_LIMIT_BYTES));
    await stream.next("pong");
    stream.sendText(padded('{"type":"ping",', SMALL_LIMIT_BYTES + 1));
    // The gateway's own close (its reason), from the limit it learnt from the replica.
    expect(await stream.closed()).to.deep.equal({ code: 1009, reason: "message too big" });
  });

  it("SESSION_CREATIONS_QUEUED as configured: a burst past one running and two waiting is 503 SESSION_CREATIONS_BUSY, nothing created", async () => {
    // 40 creations sent at once reach the gateway within a few milliseconds, while one creation
    // takes several (calls to three services and two store writes): most find the queue full.
    const own = await createTenant(system);
    const spec = await publishMoveSpec(own, exampleYaml("squat"));
    const burst = await Promise.all(
      Array.from({ length: 40 }, () =>
        own.call("POST", "/api/detection/sessions", {
          project_id: own.projectId,
          movespec_id: spec.movespecId,
        }),
      ),
    );
    const created = burst.filter((r) => r.status === 201);
    const refused = burst.filter((r) => r.status !== 201);
    expect(created.length).to.be.at.least(1 + CREATIONS_QUEUED);
    expect(refused.length).to.be.at.least(1);
    for (const response of refused) {
      expect(response.status).to.equal(503);
      expect(response.headers.get("retry-after")).to.equal("1");
      expect(response.body.error).to.deep.include({ code: "unavailable", retryable: true });
      expect(response.body.error.details).to.include({
        reason: "SESSION_CREATIONS_BUSY",
        retry_after_seconds: 1,
      });
    }
    // Every refusal created nothing: the project holds exactly the sessions answered 201.
    const mongo = new MongoClient(system.mongodbUri);
    try {
      const stored = await mongo
        .db("mds_detection")
        .collection<{ _id: string; project_id: string }>("sessions")
        .find({ project_id: own.projectId })
        .map((session) => session._id)
        .toArray();
      expect(stored.sort()).to.deep.equal(created.map((r) => r.body.session_id as string).sort());
    } finally {
      await mongo.close();
    }
    // The queue drained: a creation now goes through.
    const after = await createSession(own, { movespec_id: spec.movespecId });
    expect(after.session_id).to.be.a("string");
  });

  it("a refused creation gives its place back at once: three 404s then a 201, none waiting for another", async () => {
    const started = performance.now();
    for (let i = 0; i < 3; i++) {
      const unknown = await tenant.call("POST", "/api/detection/sessions", {
        project_id: tenant.projectId,
        movespec_id: newId(),
      });
      expect(unknown.status).to.equal(404);
    }
    const created = await createSession(tenant, { movespec_id: squat.movespecId });
    expect(created.session_id).to.be.a("string");
    // A place kept by a refused creation is only freed after a second (the gateway's hold limit):
    // three of them would make this take 3 s.
    expect(performance.now() - started).to.be.below(2500);
  });

  it("DETECTION_LIVE_BURST_FRAMES as configured: a live batch of 10 is taken, 11 at once are 4429", async () => {
    const batch = (count: number) =>
      SQUAT_FRAMES.slice(0, count).map((frame) => ({
        ...frame,
        keypoints: frame.keypoints.map(() => [0.5, 0.5]),
      }));
    const fits = await createSession(tenant, { movespec_id: squat.movespecId });
    const whole = await attach(fits.stream_url, fits.runtime_token);
    expect(whole.ofType("ready")[0].limits.live_max_fps).to.equal(5);
    whole.send({ type: "frames", frames: batch(10) });
    whole.send({ type: "finalize" });
    expect(await whole.next("end")).to.include({ status: "completed", accepted_frames_total: 10 });
    const over = await createSession(tenant, { movespec_id: squat.movespecId });
    const refused = await attach(over.stream_url, over.runtime_token);
    refused.send({ type: "frames", frames: batch(11) });
    expect((await refused.closed()).code).to.equal(4429);
    expect(refused.ofType("error").map((m) => m.code)).to.deep.equal(["RATE_LIMITED"]);
    expect((await getSession(tenant, over.session_id)).accepted_frames_total).to.equal(0);
  });
});
