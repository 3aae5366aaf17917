/**
 * The opt-in binary frame encoding (docs/realtime.md, "Binary frames"), through the gateway: the
 * same answers as JSON frames for the same mistakes, plus the binary layout's own (truncated,
 * wrong sizes, unknown header), never a crash; resume after a reconnect; JSON still accepted.
 * Every recording counted exactly in binary: test/detection/recordings-end-to-end.test.ts.
 */

import { encodeBinaryFrames, type PoseFrame, StreamClient } from "@movement-detection/sdk";
import { expect } from "chai";
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
import { loadExample, readFrames, runFrames } from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const FRAMES = readFrames("m01_s01") as PoseFrame[];
const BINARY = { frame_encoding: "binary" };

/** The frames as the server reads them from float32 values. */
function asFloat32(frames: readonly PoseFrame[]): PoseFrame[] {
  return frames.map((frame) => ({
    ...frame,
    keypoints: frame.keypoints?.map((point) => point.map(Math.fround)) ?? null,
  }));
}

function encode(frames: readonly PoseFrame[]): Uint8Array {
  const bytes = encodeBinaryFrames(frames, 33);
  if (!bytes) throw new Error("frames not encodable");
  return bytes;
}

describe("realtime stream: binary frames", function () {
  this.timeout(30_000);
  let system: TestSystem;
  let tenant: TestTenant;
  let squat: PublishedMoveSpec;

  before(async function () {
    this.timeout(90_000);
    system = await startTestSystem({
      serviceEnv: {
        detection: {
          DETECTION_CHECKPOINT_INTERVAL_MS: "200",
          DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100",
        },
      },
    });
    tenant = await createTenant(system);
    squat = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
  });

  after(async () => {
    await system?.stop();
  });

  function newSession(mode: "live" | "replay" = "replay"): Promise<CreatedSession> {
    return createSession(tenant, { movespec_id: squat.movespecId, mode });
  }

  const sendBytes = (stream: RawStream, bytes: Uint8Array) =>
    stream.ws.send(bytes, { binary: true });

  it("is negotiated in hello and echoed in ready; JSON stays the default", async () => {
    const session = await newSession();
    const binary = await attach(session.stream_url, session.runtime_token, BINARY);
    expect(binary.ofType("ready")[0].frame_encoding).to.equal("binary");
    binary.close();
    await binary.closed();
    const json = await attach(session.stream_url, session.runtime_token);
    expect(json.ofType("ready")[0].frame_encoding).to.equal("json");
    // Without the hello's consent a binary message is refused, as before.
    sendBytes(json, encode(FRAMES.slice(0, 2)));
    json.send({ type: "ping" });
    await json.next("pong");
    expect(json.ofType("warning").map((w) => w.code)).to.deep.equal(["BINARY_NOT_SUPPORTED"]);
    expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(0);
    json.close();
  });

  it("refuses an unknown frame_encoding in hello with 4401", async () => {
    const session = await newSession();
    const stream = await openRaw(session.stream_url);
    stream.send({ type: "hello", runtime_token: session.runtime_token, frame_encoding: "msgpack" });
    const closed = await stream.closed();
    expect(closed.code).to.equal(4401);
    expect(stream.ofType("error").map((m) => m.code)).to.include("HELLO_REQUIRED");
  });

  it("warns about broken binary messages and bad frames, counts none of them, and goes on", async () => {
    const session = await newSession();
    const stream = await attach(session.stream_url, session.runtime_token, BINARY);
    const good = FRAMES.slice(0, 6);
    sendBytes(stream, encode([good[0]]));
    const one = encode([good[1]]);
    const mutate = (change: (view: DataView) => void, bytes = one) => {
      const copy = bytes.slice();
      change(new DataView(copy.buffer));
      return copy;
    };
    const warningsBefore = () => stream.ofType("warning").length;
    const cases: [string, Uint8Array][] = [
      ["a short header", one.slice(0, 5)],
      ["truncated", one.slice(0, one.length - 3)],
      ["trailing bytes", new Uint8Array([...one, 0, 0, 0, 0])],
      ["no frames", mutate((v) => v.setUint32(4, 0, true), one.slice(0, 8))],
      ["more frames announced than sent", mutate((v) => v.setUint32(4, 2, true))],
      ["unknown version", mutate((v) => v.setUint8(0, 2))],
      ["5 values per keypoint", mutate((v) => v.setUint8(1, 5))],
      [
        "17 keypoints on a blazepose session",
        encodeBinaryFrames(
          [good[1]].map((f) => ({ ...f, keypoints: f.keypoints?.slice(0, 17) ?? null })),
          17,
        ) as Uint8Array,
      ],
      ["NaN x", mutate((v) => v.setFloat32(32, Number.NaN, true))],
      ["infinite visibility", mutate((v) => v.setFloat32(32 + 12, Number.POSITIVE_INFINITY, true))],
      ["a coordinate out of range", mutate((v) => v.setFloat32(36, 3e7, true))],
      ["seq not an integer", mutate((v) => v.setFloat64(8, 1.5, true))],
      ["seq negative", mutate((v) => v.setFloat64(8, -1, true))],
      ["t NaN", mutate((v) => v.setFloat64(16, Number.NaN, true))],
      ["t not after the last", mutate((v) => v.setFloat64(16, good[0].t, true))],
      ["unknown flags", mutate((v) => v.setUint32(24, 6, true))],
      ["reserved not 0", mutate((v) => v.setUint32(28, 1, true))],
    ];
    for (const [, bytes] of cases) sendBytes(stream, bytes);
    stream.sendText("{oops");
    for (const frame of good.slice(1)) sendBytes(stream, encode([frame]));
    stream.send({ type: "ping" });
    await stream.next("pong");
    await stream.next("ack", (ack) => ack.last_seq === 5);
    const warnings = stream.ofType("warning").map((warning) => warning.code);
    expect(warnings, JSON.stringify(stream.ofType("warning"))).to.deep.equal([
      ...Array(7).fill("BINARY_FRAMES_INVALID"),
      "KEYPOINT_COUNT_MISMATCH",
      "COORDINATE_INVALID",
      "COORDINATE_INVALID",
      "COORDINATE_INVALID",
      "FRAME_MALFORMED",
      "FRAME_MALFORMED",
      "FRAME_MALFORMED",
      "TIME_NOT_INCREASING",
      "FRAME_MALFORMED",
      "FRAME_MALFORMED",
      "MALFORMED_JSON",
    ]);
    expect(warningsBefore()).to.equal(cases.length + 1);
    // A rejected frame's warning names its seq when it has one.
    expect(stream.ofType("warning").find((w) => w.code === "TIME_NOT_INCREASING")?.seq).to.equal(1);
    expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(6);
    stream.close();
  });

  it("accepts batches, no-person frames, resends (silently), and JSON frames in between", async () => {
    const session = await newSession();
    const stream = await attach(session.stream_url, session.runtime_token, BINARY);
    const frames = FRAMES.slice(0, 20);
    sendBytes(stream, encode(frames.slice(0, 10)));
    sendBytes(stream, encode(frames.slice(5, 12))); // 5 resent, 2 new
    stream.send({ type: "frames", frames: frames.slice(12, 15) });
    const nobody = [15, 16, 17, 18, 19].map((seq) => ({
      seq,
      t: frames[14].t + 0.1 * (seq - 14),
      keypoints: null,
    }));
    sendBytes(stream, encode(nobody));
    await stream.next("ack", (ack) => ack.last_seq === 19);
    expect(stream.ofType("warning")).to.deep.equal([]);
    const lost = stream.ofType("event").filter((m) => m.event.type === "tracking.lost");
    expect(lost).to.have.length(1);
    expect((await getSession(tenant, session.session_id)).accepted_frames_total).to.equal(20);
    stream.close();
  });

  it("resends of accepted frames do not count against the live rate: no 4429", async () => {
    const session = await newSession("live");
    const stream = await attach(session.stream_url, session.runtime_token, BINARY);
    sendBytes(stream, encode(FRAMES.slice(0, 100)));
    await stream.next("ack", (ack) => ack.last_seq === 99);
    for (let round = 0; round < 4; round += 1) sendBytes(stream, encode(FRAMES.slice(0, 100)));
    sendBytes(stream, encode(FRAMES.slice(50, 101)));
    stream.send({ type: "finalize" });
    expect(await stream.next("end")).to.include({
      status: "completed",
      accepted_frames_total: 101,
    });
    expect((await stream.closed()).code).to.equal(1000);
    // New frames still count: 200 at once are past the burst allowance.
    const flooded = await newSession("live");
    const flood = await attach(flooded.stream_url, flooded.runtime_token, BINARY);
    sendBytes(flood, encode(FRAMES.slice(0, 100)));
    sendBytes(flood, encode(FRAMES.slice(100, 200)));
    expect((await flood.closed()).code).to.equal(4429);
  });

  it("a message above 64 KiB is closed 1009 at the gateway; a batch of 118 frames passes", async () => {
    const session = await newSession();
    const stream = await attach(session.stream_url, session.runtime_token, BINARY);
    const largest = encode(FRAMES.slice(0, 118));
    expect(largest.length).to.be.at.most(64 * 1024);
    sendBytes(stream, largest);
    await stream.next("ack", (ack) => ack.last_seq === 117);
    const tooBig = encode(FRAMES.slice(118, 237));
    expect(tooBig.length).to.be.above(64 * 1024);
    sendBytes(stream, tooBig);
    expect((await stream.closed()).code).to.equal(1009);
    const again = await attach(session.stream_url, session.runtime_token, BINARY);
    expect(again.ofType("ready")[0]).to.include({ last_seq: 117, accepted_frames_total: 118 });
    again.close();
  });

  it("an abrupt disconnect loses nothing: the SDK resumes in binary and counts every frame once", async () => {
    const session = await newSession();
    const events: { event_seq: number }[] = [];
    let ready = 0;
    const client = new StreamClient({
      streamUrl: session.stream_url,
      runtimeToken: session.runtime_token,
      frameEncoding: "binary",
      batchSize: 25,
      onEvent: (event) => events.push(event),
      onReady: () => {
        ready += 1;
      },
    });
    await client.connect();
    const half = Math.floor(FRAMES.length / 2);
    for (const frame of FRAMES.slice(0, half)) await client.send(frame);
    // Cut the connection under the client once the first half is acknowledged (events travel
    // before acks, so the client has them all): it reconnects, says hello in binary again and
    // sends the rest. A batch in flight at the cut: the raw test below.
    await client.acknowledged();
    const socket = (client as unknown as { socket: { terminate(): void } }).socket;
    socket.terminate();
    for (const frame of FRAMES.slice(half)) await client.send(frame);
    const end = await client.finalize();
    client.close();
    expect(ready).to.be.at.least(2);
    expect(end.accepted_frames_total).to.equal(FRAMES.length);
    const expected = runFrames(loadExample("squat"), asFloat32(FRAMES));
    expect(events.map((e) => e.event_seq)).to.deep.equal(expected.map((e) => e.event_seq));
    expect(events).to.deep.equal(JSON.parse(JSON.stringify(expected)));
  });

  it("a batch in flight at an abrupt disconnect: the reconnect resumes after the last frame the server had", async () => {
    const session = await newSession();
    const first = await attach(session.stream_url, session.runtime_token, BINARY);
    sendBytes(first, encode(FRAMES.slice(0, 35)));
    await first.next("ack", (ack) => ack.last_seq === 34);
    sendBytes(first, encode(FRAMES.slice(35, 50)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    first.ws.terminate();
    const events = first.ofType("event").map((m) => m.event.event_seq);
    const second = await attach(session.stream_url, session.runtime_token, {
      ...BINARY,
      last_event_seq: events.at(-1) ?? 0,
    });
    const ready = second.ofType("ready")[0];
    expect(ready.last_seq).to.be.oneOf([34, 49]);
    expect(ready.frame_encoding).to.equal("binary");
    sendBytes(second, encode(FRAMES.slice(0, 60))); // everything again: only the new ones count
    second.send({ type: "finalize" });
    expect(await second.next("end")).to.include({ accepted_frames_total: 60 });
    const replayed = second.ofType("event").map((m) => m.event.event_seq);
    expect(Math.min(...replayed)).to.be.greaterThan(events.at(-1) ?? 0);
    expect(second.ofType("warning")).to.deep.equal([]);
  });
});
