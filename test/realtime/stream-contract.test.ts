/**
 * The realtime stream, contract 1, against hostile and careless clients, through the gateway:
 * each case gets the contract's answer (close code, `error` or `warning`), and a well-behaved
 * session streaming alongside is served correctly throughout.
 */

import { type DetectionEvent, StreamClient } from "@movement-detection/sdk";
import { expect } from "chai";
import { playFrames } from "../../examples/stream-client/recording.js";
import { MAX_MESSAGE_FRAGMENTS } from "../../gateway/realtime/frame-guard.js";
import { directStream } from "../detection/support/detection-process.js";
import { attach, openRaw, type RawStream } from "../detection/support/raw-stream.js";
import {
  type CreatedSession,
  createSession,
  createTenant,
  exampleYaml,
  getSession,
  type PublishedMoveSpec,
  publishMoveSpec,
  type TestTenant,
} from "../detection/support/session-api.js";
import { readFrames } from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const FRAMES = readFrames("m01_s01");
type Frame = (typeof FRAMES)[number];

describe("realtime stream: contract 1 against hostile clients", function () {
  this.timeout(30_000);
  let system: TestSystem;
  let tenant: TestTenant;
  let squat: PublishedMoveSpec;
  let bystander: Promise<{ events: DetectionEvent[]; accepted: number; sessionId: string }>;
  let bystanderClient: StreamClient | undefined;

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({
      serviceEnv: {
        detection: {
          DETECTION_HELLO_TIMEOUT_MS: "1000",
          DETECTION_CHECKPOINT_INTERVAL_MS: "200",
          DETECTION_OUTBOUND_HIGH_WATER_BYTES: "65536",
          DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100",
        },
      },
    });
    tenant = await createTenant(system);
    squat = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
    bystander = streamBystander();
  });

  after(async () => {
    bystanderClient?.close();
    await bystander?.catch(() => undefined);
    await system?.stop();
  });

  /** A well-behaved live session running while the hostile ones below do their worst. */
  async function streamBystander() {
    const created = await newSession("live");
    const events: DetectionEvent[] = [];
    const client = new StreamClient({
      streamUrl: created.stream_url,
      runtimeToken: created.runtime_token,
      onEvent: (event) => events.push(event),
    });
    bystanderClient = client;
    await client.connect();
    await playFrames(FRAMES, (frame) => client.send(frame), { pace: "live", speed: 2 });
    const end = await client.finalize();
    return { events, accepted: end.accepted_frames_total, sessionId: created.session_id };
  }

  function newSession(mode: "live" | "replay" = "replay"): Promise<CreatedSession> {
    return createSession(tenant, { movespec_id: squat.movespecId, mode });
  }

  const frameMessage = (frame: Frame) => ({ type: "frame", ...frame });

  async function expectClosed(stream: RawStream, code: number, errorCode?: string): Promise<void> {
    const closed = await stream.closed();
    expect(closed.code, JSON.stringify(stream.messages)).to.equal(code);
    if (errorCode) expect(stream.ofType("error").map((m) => m.code)).to.include(errorCode);
  }

  describe("attaching", () => {
    it("closes 4401 when no hello comes in time", async () => {
      const session = await newSession();
      const stream = await openRaw(session.stream_url);
      await expectClosed(stream, 4401, "HELLO_TIMEOUT");
    });

    it("closes 4401 when the first message is not a hello (a frame, malformed JSON)", async () => {
      const session = await newSession();
      const frameFirst = await openRaw(session.stream_url);
      frameFirst.send(frameMessage(FRAMES[0]));
      await expectClosed(frameFirst, 4401, "HELLO_REQUIRED");
      const garbage = await openRaw(session.stream_url);
      garbage.sendText("{not json");
      await expectClosed(garbage, 4401, "HELLO_REQUIRED");
    });

    it("closes 4401 for a bad token, an access token, another session's token, or none", async () => {
      const session = await newSession();
      const other = await newSession();
      const cases: [unknown, string][] = [
        ["not-a-jwt", "TOKEN_INVALID"],
        [`${session.runtime_token.slice(0, -4)}AAAA`, "TOKEN_INVALID"],
        [tenant.token, "TOKEN_INVALID"],
        [other.runtime_token, "TOKEN_SESSION_MISMATCH"],
        [undefined, "TOKEN_INVALID"],
      ];
      for (const [token, code] of cases) {
        const stream = await openRaw(session.stream_url);
        stream.send({ type: "hello", runtime_token: token });
        await expectClosed(stream, 4401, code);
      }
      // None of that harmed the session.
      const good = await attach(session.stream_url, session.runtime_token);
      expect(good.ofType("ready")[0]).to.include({
        session_id: session.session_id,
        accepted_frames_total: 0,
      });
      good.close();
    });

    it("accepts the runtime token in the upgrade's Authorization header", async () => {
      const session = await newSession();
      const stream = await openRaw(session.stream_url, {
        authorization: `Bearer ${session.runtime_token}`,
      });
      stream.send({ type: "hello", topology: "blazepose-33" });
      const ready = await stream.next("ready");
      expect(ready).to.include({
        type: "ready",
        session_id: session.session_id,
        topology: "blazepose-33",
        input_schema_version: "pose-frame.v1",
        output_schema_version: "detection-event.v1",
        accepted_frames_total: 0,
      });
      expect(ready).to.not.have.property("last_seq");
      stream.close();
      const access = await openRaw(session.stream_url, { authorization: `Bearer ${tenant.token}` });
      access.send({ type: "hello" });
      await expectClosed(access, 4401, "TOKEN_INVALID");
      // Not a bearer credential (a tab after the scheme): the upgrade carries no token at all.
      const tabbed = await openRaw(session.stream_url, {
        authorization: `Bearer\t${session.runtime_token}`,
      });
      tabbed.send({ type: "hello" });
      await expectClosed(tabbed, 4401, "TOKEN_INVALID");
    });

    it("answers unknown sessions with 4404 and unknown routes with 404", async () => {
      const session = await newSession();
      const unknown = await openRaw(
        session.stream_url.replace(session.session_id, "not-a-session"),
      );
      await expectClosed(unknown, 4404, "SESSION_NOT_FOUND");
      const wrongRoute = session.stream_url.replace("/stream", "/streams");
      const refused = await openRaw(wrongRoute).catch((error) => error as { statusCode?: number });
      expect((refused as { statusCode?: number }).statusCode).to.equal(404);
    });

    it("takes a hello's numbers up to their edges and refuses them just past (4401)", async () => {
      const valid: Record<string, unknown>[] = [
        { aspect_ratio: 1e-9 },
        { aspect_ratio: 99.999999 },
        { last_event_seq: 0 },
        { last_event_seq: Number.MAX_SAFE_INTEGER },
      ];
      for (const fields of valid) {
        const session = await newSession();
        const stream = await attach(session.stream_url, session.runtime_token, fields);
        expect(stream.ofType("ready"), JSON.stringify(fields)).to.have.length(1);
        stream.close();
      }
      const invalid: Record<string, unknown>[] = [
        { aspect_ratio: 0 },
        { aspect_ratio: 100 },
        { last_event_seq: -1 },
        { last_event_seq: Number.MAX_SAFE_INTEGER + 1 },
      ];
      for (const fields of invalid) {
        const session = await newSession();
        const stream = await openRaw(session.stream_url);
        stream.send({ type: "hello", runtime_token: session.runtime_token, ...fields });
        await expectClosed(stream, 4401, "HELLO_REQUIRED");
        expect(stream.ofType("ready"), JSON.stringify(fields)).to.deep.equal([]);
      }
    });

    it("refuses a topology the session cannot run with 1008", async () => {
      const session = await newSession();
      const stream = await openRaw(session.stream_url);
      stream.send({
        type: "hello",
        runtime_token: session.runtime_token,
        topology: "mediapipe-21",
      });
      await expectClosed(stream, 1008, "TOPOLOGY_UNSUPPORTED");
    });
  });

  describe("attached", () => {
    it("warns about malformed messages and frames, counts none of them, and goes on", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const good = FRAMES.slice(0, 6);
      const kp = good[1].keypoints;
      stream.send(frameMessage(good[0]));
      stream.sendText("{oops");
      stream.sendText("[1,2,3]");
      stream.send({ type: "dance" });
      stream.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      stream.sendText(
        `{"type":"frame","seq":1,"t":0.04,"keypoints":[[NaN,0.5]${",[0.5,0.5]".repeat(32)}]}`,
      );
      stream.sendText(
        `{"type":"frame","seq":1,"t":0.04,"keypoints":[[1e999,0.5]${",[0.5,0.5]".repeat(32)}]}`,
      );
      stream.send({ type: "frame", seq: 1, t: 0.04, keypoints: kp.slice(0, 17) });
      stream.send({ type: "frame", seq: 1, t: 0.04, keypoints: kp.map(() => ["x", "y"]) });
      stream.send({ type: "frame", seq: 1, t: "soon", keypoints: kp });
      stream.send({ type: "frames", frames: "all of them" });
      stream.send({ type: "frames", frames: [{ seq: 1 }, null, 7] });
      for (const frame of good.slice(1)) stream.send(frameMessage(frame));
      stream.send({ type: "ping" });
      await stream.next("pong");
      await stream.next("ack", (ack) => ack.last_seq === 5);
      const warnings = stream.ofType("warning").map((warning) => warning.code);
      expect(warnings).to.include.members([
        "MALFORMED_JSON",
        "MESSAGE_INVALID",
        "UNKNOWN_MESSAGE_TYPE",
        "BINARY_NOT_SUPPORTED",
        "COORDINATE_INVALID",
        "KEYPOINT_COUNT_MISMATCH",
        "FRAME_MALFORMED",
      ]);
      expect(warnings.filter((code) => code === "MALFORMED_JSON")).to.have.length(2); // {oops and NaN
      expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(6);
      stream.close();
    });

    it("takes the topology's keypoint count, 2 to 4 values, coordinates to 1e6; just past is warned", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const keypoints = (count: number, values: number) =>
        Array.from({ length: count }, () => [0.5, 0.5, 0, 1, 1].slice(0, values));
      const sent: [number, number][] = [
        [32, 2],
        [33, 2], // accepted, seq 1
        [34, 2],
        [33, 1],
        [33, 4], // accepted, seq 4
        [33, 5],
      ];
      sent.forEach(([count, values], seq) => {
        stream.send({ type: "frame", seq, t: seq / 30, keypoints: keypoints(count, values) });
      });
      // Coordinates are plausible up to a magnitude of 1,000,000, read by the byte scanner (a
      // plain frame) or by JSON.parse (a batch) alike.
      const x = (value: string) => `[[${value},0.5]${",[0.5,0.5]".repeat(32)}]`;
      stream.sendText(`{"type":"frame","seq":6,"t":0.2,"keypoints":${x("1000000")}}`);
      stream.sendText(`{"type":"frame","seq":7,"t":0.3,"keypoints":${x("-1000000.5")}}`);
      stream.sendText(`{"type":"frames","frames":[{"seq":8,"t":0.4,"keypoints":${x("-1e6")}}]}`);
      stream.sendText(
        `{"type":"frames","frames":[{"seq":9,"t":0.5,"keypoints":${x("1000000.5")}}]}`,
      );
      // The largest seq there is, then the first integer past it.
      const last = Number.MAX_SAFE_INTEGER;
      stream.send({ type: "frame", seq: last, t: 1, keypoints: keypoints(33, 2) });
      stream.sendText(`{"type":"frame","seq":${last + 1},"t":2,"keypoints":[[0.5,0.5]]}`);
      stream.send({ type: "ping" });
      await stream.next("pong");
      const warnings = stream.ofType("warning").map((w) => [w.code, w.seq]);
      expect(warnings).to.deep.equal([
        ["KEYPOINT_COUNT_MISMATCH", 0],
        ["KEYPOINT_COUNT_MISMATCH", 2],
        ["FRAME_MALFORMED", 3],
        ["FRAME_MALFORMED", 5],
        ["COORDINATE_INVALID", 7],
        ["COORDINATE_INVALID", 9],
        ["FRAME_MALFORMED", last + 1],
      ]);
      stream.send({ type: "finalize" });
      expect(await stream.next("end")).to.include({
        status: "completed",
        accepted_frames_total: 5,
      });
    });

    it("details 16 rejected frames of a batch; from the 17th, one warning counts the rest", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const rejected = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({
          seq: from + i,
          t: from + i,
          keypoints: [[0.5, 0.5]],
        }));
      stream.send({ type: "frames", frames: rejected(0, 16) });
      stream.send({ type: "ping" });
      await stream.next("pong");
      expect(stream.ofType("warning").map((w) => w.seq)).to.deep.equal(
        Array.from({ length: 16 }, (_, i) => i),
      );
      stream.send({ type: "frames", frames: rejected(100, 18) });
      const summary = await stream.next("warning", (w) => w.code === "MORE_FRAMES_REJECTED");
      expect(summary.message).to.match(/^2 more frames/);
      const second = stream.ofType("warning").slice(16);
      expect(second.map((w) => w.seq)).to.deep.equal([
        ...Array.from({ length: 16 }, (_, i) => 100 + i),
        undefined,
      ]);
      expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(0);
      stream.close();
    });

    it("accepts frames with keypoints: null (no person): counted, no warning, tracking lost", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const frames = FRAMES.slice(0, 5);
      for (const frame of frames) stream.send(frameMessage(frame));
      // 0.5 s with nobody in the picture, in one message and in a batch.
      stream.send({ type: "frame", seq: 5, t: frames[4].t + 0.1, keypoints: null });
      stream.send({
        type: "frames",
        frames: [6, 7, 8, 9].map((seq) => ({
          seq,
          t: frames[4].t + 0.1 * (seq - 4),
          keypoints: null,
        })),
      });
      await stream.next("ack", (ack) => ack.last_seq === 9);
      expect(stream.ofType("warning")).to.deep.equal([]);
      const lost = stream
        .ofType("event")
        .map((m) => m.event)
        .filter((e) => e.type === "tracking.lost");
      expect(lost).to.have.length(1);
      expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(10);
      stream.close();
    });

    it("ignores frames whose seq is not above the last accepted one, silently", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const frames = FRAMES.slice(0, 10);
      for (const frame of frames) stream.send(frameMessage(frame));
      for (const frame of [frames[9], frames[3], frames[0]]) stream.send(frameMessage(frame));
      stream.send({ type: "frames", frames: frames.slice(5) });
      stream.send(frameMessage(FRAMES[10]));
      await stream.next("ack", (ack) => ack.last_seq === 10);
      expect(stream.ofType("warning")).to.deep.equal([]);
      expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(11);
      stream.close();
    });

    it("is counted by the gateway: messages and bytes each way", async () => {
      const before = await gatewayStreamCounters();
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const messages = FRAMES.slice(0, 10).map(frameMessage);
      for (const message of messages) stream.send(message);
      await stream.next("ack", (ack) => ack.last_seq === 9);
      const after = await gatewayStreamCounters();
      stream.close();
      // At least hello and the 10 frames in, ready and an ack out (the bystander adds its own).
      expect(after.messages.inbound - before.messages.inbound).to.be.at.least(11);
      expect(after.messages.outbound - before.messages.outbound).to.be.at.least(2);
      const frameBytes = messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0);
      expect(after.bytes.inbound - before.bytes.inbound).to.be.at.least(frameBytes);
      expect(after.bytes.outbound - before.bytes.outbound).to.be.greaterThan(0);
    });

    it("carries new streams on the connection it already has with the replica: no handshake", async () => {
      const handshakes = async () => {
        const text = await (await fetch(`${system.gatewayAdminUrl}/metrics`)).text();
        const count = (resumed: boolean) =>
          Number(
            new RegExp(
              `^gateway_stream_upstream_handshakes_total\\{resumed="${resumed}"[,}].* (\\S+)$`,
              "m",
            ).exec(text)?.[1] ?? 0,
          );
        return count(false) + count(true);
      };
      const opened = async () => {
        const session = await newSession();
        const stream = await attach(session.stream_url, session.runtime_token);
        stream.send(frameMessage(FRAMES[0]));
        await stream.next("ack", (ack) => ack.last_seq === 0);
        return stream;
      };
      const first = await opened();
      // One replica, one connection: opened by whichever stream came first (mutual TLS).
      expect(await handshakes()).to.equal(1);
      const second = await opened();
      first.close();
      second.close();
      (await opened()).close();
      expect(await handshakes()).to.equal(1);
    });

    it("closes a message above 64 KiB with 1009 at the gateway; the session resumes afterwards", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      stream.send({ type: "frames", frames: FRAMES.slice(0, 20) });
      await stream.next("ack", (ack) => ack.last_seq === 19);
      stream.send({ type: "frames", frames: FRAMES.slice(20, 120) }); // ~140 KB
      await expectClosed(stream, 1009);
      const again = await attach(session.stream_url, session.runtime_token);
      expect(again.ofType("ready")[0]).to.include({ last_seq: 19, accepted_frames_total: 20 });
      again.close();
    });

    it("takes a message of exactly 64 KiB, at the gateway and at the replica; one byte more is 1009", async () => {
      const ping = (bytes: number) => {
        const head = '{"type":"ping","pad":"';
        return `${head}${"x".repeat(bytes - head.length - 2)}"}`;
      };
      expect(ping(65_536)).to.have.length(65_536);
      const session = await newSession();
      const direct = await directStream(
        system,
        system.services.detection.grpcUrl,
        session.session_id,
      );
      for (const target of [session.stream_url, direct]) {
        const stream = await attach(target, session.runtime_token);
        stream.sendText(ping(65_536));
        await stream.next("pong");
        stream.sendText(ping(65_537));
        await expectClosed(stream, 1009);
      }
    });

    it("a message in more fragments than a server keeps: 1008 with the reason, from the gateway", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token);
      const ping = JSON.stringify({ type: "ping", pad: "x".repeat(20_000) });
      // At the limit: one message, answered.
      const atLimit = `{"type":"ping","pad":"${"x".repeat(MAX_MESSAGE_FRAGMENTS - 24)}"}`;
      expect(atLimit).to.have.length(MAX_MESSAGE_FRAGMENTS);
      for (let i = 0; i < atLimit.length; i += 1) {
        stream.ws.send(atLimit[i], { fin: i === atLimit.length - 1 });
      }
      await stream.next("pong");
      // One fragment more than the limit.
      for (let i = 0; i <= MAX_MESSAGE_FRAGMENTS && i < ping.length; i += 1) {
        stream.ws.send(ping[i], { fin: false });
      }
      const closed = await stream.closed();
      expect(closed).to.deep.equal({
        code: 1008,
        reason: `message in more than ${MAX_MESSAGE_FRAGMENTS} fragments`,
      });
      const again = await attach(session.stream_url, session.runtime_token);
      expect(again.ofType("ready")).to.have.length(1);
      again.close();
    });

    it("the replica enforces the size limit too, for anything that reaches it directly", async () => {
      const session = await newSession();
      const direct = await directStream(
        system,
        system.services.detection.grpcUrl,
        session.session_id,
      );
      const stream = await attach(direct, session.runtime_token);
      stream.sendText(`{"type":"ping","pad":"${"x".repeat(70_000)}"}`);
      await expectClosed(stream, 1009);
    });

    it("a second attachment takes over: the first is closed 4409, nothing is counted twice", async () => {
      const session = await newSession();
      const first = await attach(session.stream_url, session.runtime_token);
      first.send({ type: "frames", frames: FRAMES.slice(0, 30) });
      await first.next("ack", (ack) => ack.last_seq === 29);
      const second = await attach(session.stream_url, session.runtime_token);
      await expectClosed(first, 4409, "REPLACED");
      expect(second.ofType("ready")[0]).to.include({ last_seq: 29, accepted_frames_total: 30 });
      second.send({ type: "frames", frames: FRAMES.slice(0, 40) }); // 30 resent, 10 new
      second.send({ type: "finalize" });
      expect(await second.next("end")).to.include({
        status: "completed",
        accepted_frames_total: 40,
      });
    });

    it("an abrupt disconnect loses nothing: the reconnect resumes after the last frame it had", async () => {
      const session = await newSession();
      const first = await attach(session.stream_url, session.runtime_token);
      first.send({ type: "frames", frames: FRAMES.slice(0, 35) });
      await first.next("ack", (ack) => ack.last_seq === 34);
      first.send({ type: "frames", frames: FRAMES.slice(35, 50) });
      await new Promise((resolve) => setTimeout(resolve, 50));
      first.ws.terminate();
      const events = first.ofType("event").map((m) => m.event.event_seq);
      const second = await attach(session.stream_url, session.runtime_token, {
        last_event_seq: events.at(-1) ?? 0,
      });
      const ready = second.ofType("ready")[0];
      expect(ready.last_seq).to.be.oneOf([34, 49]);
      second.send({ type: "frames", frames: FRAMES.slice(ready.last_seq + 1, 60) });
      second.send({ type: "finalize" });
      expect(await second.next("end")).to.include({ accepted_frames_total: 60 });
      const replayed = second.ofType("event").map((m) => m.event.event_seq);
      expect(Math.min(...replayed)).to.be.greaterThan(events.at(-1) ?? 0);
    });

    it("events sent but never read before an abrupt disconnect come again after it, once each", async () => {
      const session = await newSession();
      const first = await attach(session.stream_url, session.runtime_token);
      const sendFrames = (stream: typeof first, from: number, to: number) => {
        for (let at = from; at < to; at += 40) {
          stream.send({ type: "frames", frames: FRAMES.slice(at, Math.min(at + 40, to)) });
        }
      };
      sendFrames(first, 0, 100);
      await first.next("event", (m) => m.event.type === "rep.completed");
      // Three more repetitions' worth of frames; the client reads nothing more from here on, so
      // the events (and the acks) they produce stay in the network's buffers and die with it.
      first.ws.pause();
      sendFrames(first, 100, 400);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // a few checkpoints (200 ms)
      // What the client had when it died (ws may still hand over what it had buffered, later).
      const before = first.ofType("event").map((m) => m.event);
      first.ws.terminate();
      const seen = before.map((e) => e.event_seq as number);
      expect(seen).to.not.deep.equal([]);

      const second = await attach(session.stream_url, session.runtime_token, {
        last_event_seq: seen.at(-1),
      });
      // Everything was checkpointed: the engine resumes after frame 399, and no frame is resent
      // that could produce those events again.
      expect(second.ofType("ready")[0]).to.include({ last_seq: 399 });
      second.send({ type: "finalize" });
      await second.next("end");
      expect(second.ofType("warning")).to.deep.equal([]);
      const again = second.ofType("event").map((m) => m.event);
      const last = again.at(-1);
      expect(last?.type).to.equal("session.summary");
      expect(
        [...seen, ...again.map((e) => e.event_seq as number)],
        "every event_seq once, in order",
      ).to.deep.equal(Array.from({ length: last?.event_seq ?? 0 }, (_, i) => i + 1));
      // Each counted repetition reached the client exactly once, numbered 1, 2, 3, ...
      const counted = [...before, ...again]
        .filter((e) => e.type === "rep.completed")
        .map((e) => e.total);
      expect(counted).to.deep.equal(Array.from({ length: last?.count ?? 0 }, (_, i) => i + 1));
      expect(last?.count).to.be.greaterThan(1);
    });

    it("a last_event_seq beyond the session's events silences none of the events to come", async () => {
      const session = await newSession();
      const stream = await attach(session.stream_url, session.runtime_token, {
        last_event_seq: 1000,
      });
      for (let at = 0; at < 300; at += 40) {
        stream.send({ type: "frames", frames: FRAMES.slice(at, Math.min(at + 40, 300)) });
      }
      stream.send({ type: "finalize" });
      await stream.next("end");
      const events = stream.ofType("event").map((m) => m.event);
      const last = events.at(-1);
      expect(last?.type).to.equal("session.summary");
      expect(last?.count).to.be.greaterThan(0);
      expect(events.map((e) => e.event_seq)).to.deep.equal(
        Array.from({ length: last?.event_seq ?? 0 }, (_, i) => i + 1),
      );
      expect(events.filter((e) => e.type === "rep.completed")).to.have.length(last?.count ?? -1);
    });

    it("resends of accepted frames do not count against the live rate: no 4429", async () => {
      const session = await newSession("live");
      const stream = await attach(session.stream_url, session.runtime_token);
      const sendUpTo = (end: number) => {
        for (let at = 0; at < end; at += 40) {
          stream.send({ type: "frames", frames: FRAMES.slice(at, Math.min(at + 40, end)) });
        }
      };
      // Within the burst allowance (about one second's worth), then acknowledged.
      sendUpTo(100);
      await stream.next("ack", (ack) => ack.last_seq === 99);
      // A client resending everything unacknowledged at once, several times: 400 frames the
      // engine already has, far above the rate, then one new frame.
      for (let round = 0; round < 4; round += 1) sendUpTo(100);
      sendUpTo(101);
      stream.send({ type: "finalize" });
      const end = await stream.next("end");
      expect(end).to.include({ status: "completed", accepted_frames_total: 101 });
      expect((await stream.closed()).code).to.equal(1000);
      expect(stream.ofType("error")).to.deep.equal([]);
    });

    it("a live batch of the burst size (120) is taken whole; 121 at once are 4429", async () => {
      const batch = (count: number) =>
        Array.from({ length: count }, (_, seq) => ({
          seq,
          t: seq / 30,
          // Short keypoints keep 121 frames within a message's 64 KiB: the rate is under test.
          keypoints: FRAMES[0].keypoints.map(() => [0.5, 0.5]),
        }));
      const fits = await newSession("live");
      const whole = await attach(fits.stream_url, fits.runtime_token);
      whole.send({ type: "frames", frames: batch(120) });
      whole.send({ type: "finalize" });
      expect(await whole.next("end")).to.include({
        status: "completed",
        accepted_frames_total: 120,
      });
      const over = await newSession("live");
      const refused = await attach(over.stream_url, over.runtime_token);
      const message = JSON.stringify({ type: "frames", frames: batch(121) });
      expect(message.length).to.be.below(65_536);
      refused.sendText(message);
      await expectClosed(refused, 4429, "RATE_LIMITED");
      const again = await attach(over.stream_url, over.runtime_token);
      expect(again.ofType("ready")[0].accepted_frames_total).to.equal(0);
      again.close();
    });

    it("a live flood is closed 4429; the session resumes at a sane rate", async () => {
      const session = await newSession("live");
      const stream = await attach(session.stream_url, session.runtime_token);
      for (let i = 0; i < 300; i += 1) stream.send(frameMessage(FRAMES[i]));
      await expectClosed(stream, 4429, "RATE_LIMITED");
      const again = await attach(session.stream_url, session.runtime_token);
      const accepted = again.ofType("ready")[0].accepted_frames_total;
      expect(accepted).to.be.within(100, 140); // the burst allowance, about one second's worth
      again.close();
    });

    it("a replay flood is slowed down, never dropped: every frame counted", async () => {
      const session = await newSession("replay");
      const stream = await attach(session.stream_url, session.runtime_token);
      const total = 6000;
      const lastT = FRAMES.at(-1)?.t ?? 0;
      for (let i = 0; i < total; i += 1) {
        const frame = FRAMES[i % FRAMES.length];
        const lap = Math.floor(i / FRAMES.length);
        stream.send({
          type: "frame",
          seq: i,
          t: frame.t + lap * (lastT + 1),
          keypoints: frame.keypoints,
        });
      }
      stream.send({ type: "finalize" });
      const end = await stream.next("end", undefined, 25_000);
      expect(end).to.include({ status: "completed", accepted_frames_total: total });
      expect(stream.ofType("warning")).to.deep.equal([]);
    });

    it("a client that does not read its events is slowed down: the server stops reading it", async function () {
      this.timeout(60_000);
      const session = await newSession("replay");
      const stream = await attach(session.stream_url, session.runtime_token);
      const rssBefore = (await detectionMetrics()).rss;
      const socket = (stream.ws as unknown as { _socket: { pause(): void; resume(): void } })
        ._socket;
      socket.pause();
      // 42 bytes in, 17 warnings (~2 KB) out: 80,000 of these ask for ~150 MB of answers, more
      // than the loopback's socket buffers hold (up to 32 MB per socket here).
      const text = JSON.stringify({ type: "frames", frames: Array.from({ length: 17 }, () => 0) });
      for (let i = 0; i < 80_000; i += 1) stream.sendText(text);
      let paused = false;
      for (let i = 0; i < 300 && !paused; i += 1) {
        paused = (await detectionMetrics()).pausedOutbound > 0;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(paused, "the replica paused the slow reader").to.equal(true);
      expect((await detectionMetrics()).rss - rssBefore).to.be.lessThan(100 * 1024 * 1024);
      stream.ws.terminate();
      const again = await attach(session.stream_url, session.runtime_token);
      again.send({ type: "ping" });
      await again.next("pong");
      expect((await detectionMetrics()).pausedOutbound).to.equal(0);
      again.close();
    });
  });

  /** The gateway's stream counters, by direction, from its /metrics. */
  async function gatewayStreamCounters() {
    const text = await (await fetch(`${system.gatewayAdminUrl}/metrics`)).text();
    const value = (name: string, direction: string) =>
      Number(
        new RegExp(`^${name}\\{direction="${direction}"[,}].* (\\S+)$`, "m").exec(text)?.[1] ?? 0,
      );
    return {
      messages: {
        inbound: value("gateway_stream_messages_total", "inbound"),
        outbound: value("gateway_stream_messages_total", "outbound"),
      },
      bytes: {
        inbound: value("gateway_stream_bytes_total", "inbound"),
        outbound: value("gateway_stream_bytes_total", "outbound"),
      },
    };
  }

  /** The detection process's resident memory and paused slow readers, from its /metrics. */
  async function detectionMetrics(): Promise<{ rss: number; pausedOutbound: number }> {
    const text = await (await fetch(`${system.services.detection.adminUrl}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    return {
      rss: value(/^process_resident_memory_bytes\S* (\d+)/m),
      pausedOutbound: value(/^detection_paused_streams\{cause="outbound"[^}]*\} (\d+)/m),
    };
  }

  describe("meanwhile", () => {
    it("served the well-behaved session throughout", async function () {
      this.timeout(60_000);
      const { events, accepted, sessionId } = await bystander;
      expect(events.filter((event) => event.type === "rep.completed")).to.have.length(10);
      expect(accepted).to.equal(FRAMES.length);
      expect((await getSession(tenant, sessionId)).status).to.equal("completed");
    });
  });
});
