/**
 * The engine's packed-frame input (movespec/engine/packed-frames.ts): the same checks and the
 * same events as JSON frames with the same (float32) values, read straight from the bytes.
 */

import { createEngine, type PackedFrames } from "@movement-detection/movespec";
import { encodeBinaryFrames } from "@movement-detection/sdk";
import { expect } from "chai";
import { loadExample, readFrames } from "./support/recordings.js";

type Frame = { seq: number; t: number; keypoints: number[][] | null };

const asFloat32 = (frames: readonly Frame[]): Frame[] =>
  frames.map((f) => ({ ...f, keypoints: f.keypoints?.map((p) => p.map(Math.fround)) ?? null }));

/** Packed frames of a binary message (its 8-byte header skipped, as the stream does). */
function packed(frames: readonly Frame[], keypointCount = 33): PackedFrames {
  const bytes = encodeBinaryFrames(frames, keypointCount);
  if (!bytes) throw new Error("not encodable");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    view,
    offset: 8,
    count: frames.length,
    valuesPerKeypoint: view.getUint8(1) as 2 | 3 | 4,
  };
}

describe("movespec engine: packed frames", () => {
  const spec = loadExample("squat");

  for (const id of ["m01_s01", "m01_s02"]) {
    it(`${id}: the same events as pushMany of the same float32 values, in any batch size`, () => {
      const frames = asFloat32(readFrames(id));
      const reference = createEngine(spec);
      const json = reference.pushMany(frames);
      for (const size of [1, 7, 100]) {
        const engine = createEngine(spec);
        const events = [];
        for (let i = 0; i < frames.length; i += size) {
          const result = engine.pushPacked(packed(frames.slice(i, i + size)));
          expect(result.rejected).to.deep.equal([]);
          events.push(...result.events);
        }
        expect(events, `batches of ${size}`).to.deep.equal(json.events);
        expect(engine.acceptedFrames).to.equal(frames.length);
        expect(engine.snapshot()).to.deep.equal(reference.snapshot());
      }
    });
  }

  it("2 and 3 values per keypoint read as [x, y] and [x, y, z]", () => {
    const frames = asFloat32(readFrames("m01_s01").slice(0, 60));
    for (const values of [2, 3]) {
      const cut = frames.map((f) => ({
        ...f,
        keypoints: f.keypoints?.map((p) => p.slice(0, values)) ?? null,
      }));
      const a = createEngine(spec);
      a.pushMany(cut);
      const b = createEngine(spec);
      expect(b.pushPacked(packed(cut)).rejected).to.deep.equal([]);
      expect(b.snapshot()).to.deep.equal(a.snapshot());
    }
  });

  it("rejects what pushMany rejects, with the same reasons, and keeps the rest", () => {
    const frames = asFloat32(readFrames("m01_s01").slice(0, 6));
    const bad = packed(frames);
    const frameBytes = 24 + 4 * 33 * 4;
    const at = (i: number) => 8 + i * frameBytes;
    bad.view.setFloat32(at(1) + 24, Number.NaN, true); // frame 1: x NaN
    bad.view.setFloat64(at(2), 0, true); // frame 2: seq 0 again (a resend)
    bad.view.setFloat64(at(3) + 8, 0, true); // frame 3: t back in time
    bad.view.setUint32(at(4) + 16, 8, true); // frame 4: unknown flag
    const engine = createEngine(spec);
    const result = engine.pushPacked(bad);
    expect(result.rejected.map((r) => [r.index, r.reason, r.seq])).to.deep.equal([
      [1, "COORDINATE_INVALID", 1],
      [2, "SEQ_NOT_INCREASING", 0],
      [3, "TIME_NOT_INCREASING", 3],
      [4, "FRAME_MALFORMED", 4],
    ]);
    expect(engine.acceptedFrames).to.equal(2);
    expect(engine.lastSeq).to.equal(5);
  });

  it("a no-person frame is every landmark missing, as keypoints: null", () => {
    const frames = asFloat32(readFrames("m01_s01").slice(0, 40));
    const nobody = frames.map((f, i) => (i >= 20 ? { ...f, keypoints: null } : f));
    const a = createEngine(spec);
    const b = createEngine(spec);
    expect(b.pushPacked(packed(nobody)).events).to.deep.equal(a.pushMany(nobody).events);
    expect(b.snapshot()).to.deep.equal(a.snapshot());
  });

  it("push shares one result among frames without events and never hands it out mutable", () => {
    const engine = createEngine(spec);
    const frames = readFrames("m01_s01");
    const first = engine.push(frames[0]);
    const second = engine.push(frames[1]);
    expect(first).to.deep.equal({ ok: true, events: [] });
    expect(second).to.equal(first);
    expect(Object.isFrozen(first.ok ? first.events : undefined)).to.equal(true);
  });

  it("pushPacked shares one frozen result among messages without events or rejections", () => {
    const engine = createEngine(spec);
    const frames = asFloat32(readFrames("m01_s01"));
    const first = engine.pushPacked(packed(frames.slice(0, 1)));
    const second = engine.pushPacked(packed(frames.slice(1, 2)));
    expect(first).to.deep.equal({ events: [], rejected: [] });
    expect(second).to.equal(first);
    expect(Object.isFrozen(first.events) && Object.isFrozen(first.rejected)).to.equal(true);
    // A message with events gets arrays of its own, not shared with the next message's.
    const results = frames.slice(2).map((frame) => engine.pushPacked(packed([frame])));
    const withEvents = results.filter((r) => r.events.length > 0);
    expect(withEvents.length).to.be.greaterThan(5);
    expect(new Set(withEvents.map((r) => r.events)).size).to.equal(withEvents.length);
    expect(withEvents.every((r) => !Object.isFrozen(r.events))).to.equal(true);
  });

  it("after finish, pushPacked refuses every frame and hands out no event again", () => {
    const engine = createEngine(spec);
    const frames = asFloat32(readFrames("m01_s01"));
    engine.pushPacked(packed(frames.slice(0, 100)));
    const { events } = engine.finish();
    expect(events.map((e) => e.type)).to.deep.equal(["session.summary"]);
    const after = engine.pushPacked(packed(frames.slice(100, 102)));
    expect(after.events).to.deep.equal([]);
    expect(after.rejected.map((r) => r.reason)).to.deep.equal([
      "SESSION_FINISHED",
      "SESSION_FINISHED",
    ]);
    expect(engine.finish().events).to.deep.equal([]);
  });

  it("the SDK's encoder: one layout per message, or undefined (the client then sends JSON)", () => {
    const [a, b] = readFrames("m01_s01");
    const bytes = encodeBinaryFrames([a, b], 33) as Uint8Array;
    expect(bytes.length).to.equal(8 + 2 * (24 + 33 * 4 * 4));
    expect([...bytes.subarray(0, 8)]).to.deep.equal([1, 4, 33, 0, 2, 0, 0, 0]);
    const mixed = { ...b, keypoints: b.keypoints.map((p, i) => (i === 5 ? p.slice(0, 3) : p)) };
    expect(encodeBinaryFrames([a, mixed], 33)).to.equal(undefined);
    expect(encodeBinaryFrames([{ ...a, keypoints: a.keypoints.slice(0, 17) }], 33)).to.equal(
      undefined,
    );
    expect(encodeBinaryFrames([], 33)).to.equal(undefined);
    const nobody = encodeBinaryFrames([{ ...a, keypoints: null }], 33) as Uint8Array;
    expect(new DataView(nobody.buffer).getUint32(8 + 16, true)).to.equal(1);
  });
});
