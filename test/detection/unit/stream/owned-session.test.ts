/**
 * OwnedSession, one attached session, on a real engine with its client and stores faked at the
 * edges (./support/owned-session-harness.ts): frame intake, checkpoints and acks, flow control,
 * what the client is sent, and every way the session stops (end, release, abandon), the lease
 * lost at each write included. The system tests (test/detection, test/realtime) cover the same
 * through real sockets and stores; these reach the paths those cannot steer.
 */

import { restoreEngine } from "@movement-detection/movespec";
import { createAdmissionGate } from "@movement-detection/shared/process";
import { expect } from "chai";
import {
  CloseCode,
  EndReason,
  StreamError,
  StreamWarning,
} from "../../../../services/detection/reasons.js";
import type {
  ProgressWrite,
  TerminalWrite,
} from "../../../../services/detection/store/session-store.js";
import { eventMessage } from "../../../../services/detection/stream/stream-messages.js";
import { TurnQueue } from "../../../../services/detection/stream/turn-queue.js";
import { compile, ELBOW_SPEC } from "../../../movespec/support/frames.js";
import { eventually } from "../../../support/eventually.js";
import {
  asFloat32,
  attachSession,
  flush,
  type Harness,
  metricValue,
  newEngine,
  packed,
  repetitions,
  SESSION_ID,
  T0,
  untilDetached,
} from "./support/owned-session-harness.js";

/**
 * Frames 0..57: two repetitions of both elbows. Events (one per side) at seq 0 and 11 (phases), 22
 * (a phase and a repetition), 40, and 51 (again): 14 in all, event_seq 1 to 4 before seq 12.
 */
const TWO_REPS = repetitions(2);

let harnesses: Harness[] = [];

function attach(...args: Parameters<typeof attachSession>): Harness {
  const harness = attachSession(...args);
  harnesses.push(harness);
  return harness;
}

const progressOf = (h: Harness, i = 0) => {
  const call = h.store.callsOf("saveProgress")[i];
  return { progress: call.args[2] as ProgressWrite, release: call.args[3] as boolean };
};

/** How many progress writes the session made, once its pending steps ran. */
async function progressWrites(h: Harness): Promise<number> {
  await flush();
  return h.store.callsOf("saveProgress").length;
}

/** The record store's writes (`list` of no chunk reads nothing in the real store). */
const recordWrites = (h: Harness) =>
  h.records.calls.map((c) => c.method).filter((method) => method !== "list");
const terminalOf = (h: Harness) => h.store.callsOf("end")[0]?.args[2] as TerminalWrite;

describe("detection OwnedSession (one attached session: intake, checkpoints, flow, outbox, end)", () => {
  afterEach(async () => {
    // Every message any session sent follows the contract, and no session leaves a timer behind.
    const violations = harnesses.flatMap((h) => h.sink.violations);
    for (const h of harnesses) h.session.abandon(StreamError.internal, "test over", 1011);
    harnesses = [];
    expect(violations, "stream contract violations").to.deep.equal([]);
  });

  describe("frame intake", () => {
    it("sends the events of each accepted frame, and counts frames, events and their latency", async () => {
      const h = attach();
      const reference = newEngine();
      const expected: string[] = [];
      for (const frame of TWO_REPS) {
        h.session.onFrames([frame]);
        const result = reference.push(frame);
        if (result.ok) expected.push(...result.events.map(eventMessage));
      }
      expect(expected).to.have.length(14);
      expect(h.sink.sent).to.deep.equal(expected);
      expect(h.session.acceptedFramesTotal).to.equal(TWO_REPS.length);
      expect(h.session.lastSeq).to.equal(TWO_REPS.length - 1);
      expect(await metricValue(h.metrics.framesAccepted)).to.equal(TWO_REPS.length);
      expect(await metricValue(h.metrics.eventsSent)).to.equal(14);
      expect(await metricValue(h.metrics.frameToEvent, { mode: "replay" })).to.equal(14);
      expect(await metricValue(h.metrics.framesRejected)).to.equal(0);
    });

    it("gives the same events for one frame per message, batches and binary batches", () => {
      const frames = asFloat32(TWO_REPS);
      const single = attach();
      for (const frame of frames) single.session.onFrames([frame]);
      const batched = attach();
      const binary = attach();
      for (let i = 0; i < frames.length; i += 7) {
        batched.session.onFrames(frames.slice(i, i + 7));
        binary.session.onPackedFrames(packed(frames.slice(i, i + 7)));
      }
      expect(single.sink.eventTypes()).to.have.length(14);
      expect(batched.sink.sent).to.deep.equal(single.sink.sent);
      expect(binary.sink.sent).to.deep.equal(single.sink.sent);
      expect(binary.session.acceptedFramesTotal).to.equal(frames.length);
    });

    it("ignores resent frames silently and warns of any other rejected frame, with its seq", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.onFrames([TWO_REPS[3]]);
      h.session.onFrames(TWO_REPS.slice(0, 5));
      expect(h.sink.messages("warning")).to.deep.equal([]);
      h.session.onFrames([{ ...TWO_REPS[5], keypoints: TWO_REPS[5].keypoints.slice(1) }]);
      const [warning] = h.sink.messages("warning");
      expect(warning.code).to.equal("KEYPOINT_COUNT_MISMATCH");
      expect(warning.seq).to.equal(5);
      expect(warning.message).not.to.match(/^frames\[/);
      expect(await metricValue(h.metrics.framesRejected)).to.equal(1);
      expect(h.session.acceptedFramesTotal).to.equal(5);
    });

    for (const [name, push] of [
      ["JSON", (h: Harness, frames: typeof TWO_REPS) => h.session.onFrames(frames)],
      ["binary", (h: Harness, frames: typeof TWO_REPS) => h.session.onPackedFrames(packed(frames))],
    ] as const) {
      it(`${name}: warns of 16 rejected frames of a message, then of how many more were rejected`, async () => {
        const h = attach();
        push(h, TWO_REPS.slice(0, 20));
        // Frames going back in time (t before the last accepted), seq still new: 16, then 17.
        const back = (from: number, n: number) =>
          TWO_REPS.slice(from, from + n).map((f) => ({ ...f, seq: f.seq + 100 }));
        push(h, back(0, 16));
        const first = h.sink.messages("warning");
        expect(first).to.have.length(16);
        expect(first.map((w) => w.code)).to.deep.equal(Array(16).fill("TIME_NOT_INCREASING"));
        expect(first[15].message).to.match(/^frames\[15\]: /);
        expect(first[15].seq).to.equal(115);
        push(h, back(0, 17));
        const second = h.sink.messages("warning").slice(16);
        expect(second).to.have.length(17);
        expect(second[16]).to.deep.include({
          code: StreamWarning.moreRejected,
          message: "1 more frames of this message were rejected",
        });
        expect(await metricValue(h.metrics.framesRejected)).to.equal(33);
        // Resends in a batch are not rejections.
        push(h, TWO_REPS.slice(0, 20));
        expect(h.sink.messages("warning")).to.have.length(33);
      });
    }

    it("marks the session streaming at its first accepted frame, once, with that frame's time", async () => {
      const h = attach({ status: "created" });
      h.session.onFrames([{ seq: 0, t: 0, keypoints: [] }]);
      expect(h.store.callsOf("markStreaming")).to.have.length(0);
      h.clock.now = T0 + 1234;
      h.session.onFrames(TWO_REPS.slice(0, 3));
      h.clock.now = T0 + 5000;
      h.session.onFrames(TWO_REPS.slice(3, 6));
      const calls = h.store.callsOf("markStreaming");
      expect(calls).to.have.length(1);
      expect(calls[0].args).to.deep.equal([SESSION_ID, 3, new Date(T0 + 1234)]);
      // The terminal write carries it too (the status write is not awaited).
      h.session.finalize();
      await untilDetached(h);
      expect(terminalOf(h).started_at).to.deep.equal(new Date(T0 + 1234));
    });

    it("does not mark a streaming session again, and survives a failed status write", async () => {
      const streaming = attach({ status: "streaming" });
      streaming.session.onFrames(TWO_REPS.slice(0, 3));
      expect(streaming.store.callsOf("markStreaming")).to.have.length(0);
      const h = attach({ status: "created" });
      h.store.faults.fail("markStreaming");
      h.session.onFrames(TWO_REPS.slice(0, 3));
      await flush();
      expect(h.log.map((l) => `${l.level} ${l.message}`)).to.deep.equal([
        "warn streaming status not saved",
      ]);
      h.session.onFrames(TWO_REPS.slice(3, 6));
      expect(h.session.isOpen).to.equal(true);
      expect(h.session.acceptedFramesTotal).to.equal(6);
    });

    it("ignores frames while the session is finalizing, with a warning", () => {
      const h = attach({ status: "finalizing" });
      h.session.onFrames(TWO_REPS.slice(0, 3));
      h.session.onPackedFrames(packed(TWO_REPS.slice(0, 3)));
      expect(h.sink.messages()).to.deep.equal(
        Array(2).fill({
          type: "warning",
          code: StreamWarning.sessionFinalizing,
          message: "the session is finalizing: frames are ignored",
        }),
      );
      expect(h.session.acceptedFramesTotal).to.equal(0);
    });

    it("does not evaluate frames once the session stopped", () => {
      const h = attach();
      h.session.abandon(StreamError.leaseLost, "gone", CloseCode.replaced);
      const sent = h.sink.sent.length;
      h.session.onFrames(TWO_REPS.slice(0, 3));
      h.session.onPackedFrames(packed(TWO_REPS.slice(0, 3)));
      expect(h.session.acceptedFramesTotal).to.equal(0);
      expect(h.sink.sent).to.have.length(sent);
    });
  });

  describe("the frame limit", () => {
    for (const [name, push] of [
      ["JSON", (h: Harness, frames: typeof TWO_REPS) => h.session.onFrames(frames)],
      ["binary", (h: Harness, frames: typeof TWO_REPS) => h.session.onPackedFrames(packed(frames))],
    ] as const) {
      it(`${name}: takes frames up to the limit; resends past it are ignored, a new frame ends the session`, async () => {
        const h = attach({ limits: { maxFrames: 10 } });
        push(h, TWO_REPS.slice(0, 10));
        expect(h.session.acceptedFramesTotal).to.equal(10);
        push(h, TWO_REPS.slice(8, 10));
        push(h, [TWO_REPS[9]]);
        expect(h.session.isOpen).to.equal(true);
        push(h, TWO_REPS.slice(9, 12));
        expect(h.session.isOpen).to.equal(false);
        await untilDetached(h);
        expect(h.session.acceptedFramesTotal).to.equal(10);
        expect(terminalOf(h)).to.deep.include({
          status: "failed",
          error_code: EndReason.frameLimit,
          error_message: "the session reached its frame limit",
          accepted_frames_total: 10,
          last_seq: 9,
        });
        expect(h.sink.trace.slice(-4)).to.deep.equal([
          "event session.summary",
          `error ${EndReason.frameLimit}`,
          "end failed",
          `close ${CloseCode.policy}`,
        ]);
      });

      it(`${name}: a message one frame past the limit has the frames up to it taken, then ends`, async () => {
        const h = attach({ limits: { maxFrames: 10 } });
        push(h, TWO_REPS.slice(0, 8));
        push(h, TWO_REPS.slice(8, 11));
        await untilDetached(h);
        expect(terminalOf(h)).to.deep.include({ accepted_frames_total: 10, last_seq: 9 });
        expect(await metricValue(h.metrics.framesAccepted)).to.equal(10);
      });
    }

    it("JSON: a frame without a readable seq past the limit is not new: the session goes on", () => {
      const h = attach({ limits: { maxFrames: 10 } });
      h.session.onFrames(TWO_REPS.slice(0, 10));
      h.session.onFrames([TWO_REPS[9], { t: 99, keypoints: [] }]);
      expect(h.session.isOpen).to.equal(true);
      expect(h.sink.messages("warning")).to.deep.equal([]);
    });
  });

  describe("the live rate", () => {
    it("takes a burst of liveBurstFrames at once; one frame more is RATE_LIMITED and releases the session", async () => {
      const h = attach({ mode: "live", limits: { liveMaxFps: 10, liveBurstFrames: 5 } });
      h.session.onFrames(TWO_REPS.slice(0, 3));
      h.session.onPackedFrames(packed(TWO_REPS.slice(3, 5)));
      expect(h.session.isOpen).to.equal(true);
      h.session.onFrames([TWO_REPS[5]]);
      expect(h.session.isOpen).to.equal(false);
      expect(h.session.acceptedFramesTotal).to.equal(5);
      const [error] = h.sink.messages("error");
      expect(error).to.deep.equal({
        type: "error",
        code: StreamError.rateLimited,
        message:
          "live sessions take at most 10 frames per second (bursts of 5); reconnect to resume",
      });
      expect(h.sink.closes).to.deep.equal([
        { code: CloseCode.rateLimited, reason: "rate limited" },
      ]);
      await untilDetached(h);
      expect(h.store.callsOf("saveProgress")).to.have.length(1);
      expect(progressOf(h).release).to.equal(true);
      expect(progressOf(h).progress.accepted_frames_total).to.equal(5);
    });

    it("counts only new frames against the rate, and refills at liveMaxFps", () => {
      const h = attach({ mode: "live", limits: { liveMaxFps: 10, liveBurstFrames: 5 } });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.onPackedFrames(packed(TWO_REPS.slice(2, 5)));
      expect(h.session.isOpen).to.equal(true);
      h.clock.now = T0 + 100;
      h.session.onFrames(TWO_REPS.slice(3, 6));
      expect(h.session.isOpen).to.equal(true);
      expect(h.session.acceptedFramesTotal).to.equal(6);
      h.clock.now = T0 + 199;
      h.session.onPackedFrames(packed([TWO_REPS[6]]));
      expect(h.session.isOpen).to.equal(false);
    });

    it("counts a frame without a readable seq as new", () => {
      const h = attach({ mode: "live", limits: { liveMaxFps: 10, liveBurstFrames: 5 } });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.onFrames([{ t: 9, keypoints: [] }]);
      expect(h.sink.messages("error").map((m) => m.code)).to.deep.equal([StreamError.rateLimited]);
    });

    it("does not limit a replay's rate", () => {
      const h = attach({ mode: "replay", limits: { liveMaxFps: 10, liveBurstFrames: 5 } });
      h.session.onFrames(TWO_REPS);
      expect(h.session.isOpen).to.equal(true);
      expect(h.session.acceptedFramesTotal).to.equal(TWO_REPS.length);
    });
  });

  describe("events sent again after a reconnect", () => {
    /** An engine that emitted events 1..4, and the messages it sent for them. */
    function resumed() {
      const engine = newEngine();
      const messages = TWO_REPS.slice(0, 12).flatMap((f) => {
        const r = engine.push(f);
        return r.ok
          ? r.events.map((e) => ({ event_seq: e.event_seq, message: eventMessage(e) }))
          : [];
      });
      expect(messages.map((m) => m.event_seq)).to.deep.equal([1, 2, 3, 4]);
      return {
        engine: restoreEngine(compile(ELBOW_SPEC({ sides: "both" })), engine.snapshot()),
        messages,
      };
    }

    it("sends again the kept events after the client's last_event_seq, and names the ones lost", () => {
      const { engine, messages } = resumed();
      const h = attach({ engine, lastEventSeq: 1, recentEvents: messages.slice(2) });
      h.session.resendUnseenEvents();
      expect(h.sink.messages("warning")).to.deep.equal([
        {
          type: "warning",
          code: StreamWarning.eventsNotResent,
          message:
            "events 2 to 2 were sent before the disconnect and are no longer kept (the session's summary still counts them)",
        },
      ]);
      expect(h.sink.sent.slice(1)).to.deep.equal([messages[2].message, messages[3].message]);
    });

    it("resends nothing to a client that saw every event, and keeps what it sends for the next checkpoint", async () => {
      const { engine, messages } = resumed();
      const h = attach({ engine, lastEventSeq: 4, recentEvents: messages });
      h.session.resendUnseenEvents();
      expect(h.sink.sent).to.deep.equal([]);
      h.session.onFrames(TWO_REPS.slice(12, 23));
      expect(h.sink.messages("event").map((m) => m.event.event_seq)).to.deep.equal([5, 6, 7, 8]);
      await h.session.checkpoint();
      const kept = progressOf(h).progress.checkpoint?.recent_events ?? [];
      expect(kept.map((e) => e.event_seq)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(kept.slice(4).map((e) => e.message)).to.deep.equal(h.sink.sent.slice(0, 4));
    });

    it("a last_event_seq past the engine's last event silences none of the events to come", () => {
      const h = attach({ lastEventSeq: 99 });
      h.session.resendUnseenEvents();
      h.session.onFrames(TWO_REPS.slice(0, 12));
      expect(h.sink.messages("event").map((m) => m.event.event_seq)).to.deep.equal([1, 2, 3, 4]);
    });
  });

  describe("checkpoints", () => {
    it("writes one every checkpointMaxFrames frames, records first, then acks it", async () => {
      const h = attach({ durability: { checkpointMaxFrames: 23 } });
      h.session.onFrames(TWO_REPS.slice(0, 22));
      expect(await progressWrites(h)).to.equal(0);
      h.session.onFrames([TWO_REPS[22]]);
      expect(await progressWrites(h)).to.equal(1);
      const { progress, release } = progressOf(h);
      expect(release).to.equal(false);
      expect(progress).to.deep.include({
        accepted_frames_total: 23,
        last_seq: 22,
        last_activity_at: new Date(T0),
      });
      expect(progress.checkpoint).to.deep.include({
        accepted_frames_total: 23,
        last_seq: 22,
        at: new Date(T0),
        record_chunks: 1,
      });
      expect(JSON.parse(progress.checkpoint?.engine ?? "")).to.deep.include({
        acceptedFrames: 23,
        lastSeq: 22,
      });
      // The repetition's record went to the record store before the checkpoint counting it.
      expect(h.records.calls.map((c) => c.method)).to.deep.equal(["save"]);
      expect(h.records.calls[0].args.slice(0, 3)).to.deep.equal([SESSION_ID, 0, 3]);
      expect(h.sink.messages("ack")).to.deep.equal([
        { type: "ack", accepted_frames_total: 23, last_seq: 22 },
      ]);
      expect(await metricValue(h.metrics.checkpoints, { result: "ok" })).to.equal(1);
      expect(await metricValue(h.metrics.checkpointBytes)).to.equal(1);
    });

    it("checkpoints a quiet session at a tick once the interval passed since the last, not before", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 3));
      await h.session.checkpoint();
      expect(await progressWrites(h)).to.equal(1);
      h.session.onFrames(TWO_REPS.slice(3, 6));
      h.clock.now = T0 + 4999;
      h.session.tick();
      expect(await progressWrites(h)).to.equal(1);
      h.clock.now = T0 + 5000;
      h.session.tick();
      expect(await progressWrites(h)).to.equal(2);
      // Nothing new since: no checkpoint however long the wait.
      h.clock.now = T0 + 60_000;
      h.session.tick();
      expect(await progressWrites(h)).to.equal(2);
    });

    it("through the replica's batch, takes each checkpoint the batch's wait early: its ack still comes within the interval", async () => {
      const h = attach({ status: "streaming", batchWaitMs: 20 });
      const settle = () => new Promise((resolve) => setTimeout(resolve, 60));
      h.session.onFrames(TWO_REPS.slice(0, 3));
      await h.session.checkpoint();
      h.session.onFrames(TWO_REPS.slice(3, 6));
      h.clock.now = T0 + 4979;
      h.session.tick();
      await settle();
      expect(h.store.callsOf("saveProgress")).to.have.length(1);
      h.clock.now = T0 + 4980;
      h.session.tick();
      await settle();
      expect(h.store.callsOf("saveProgress")).to.have.length(2);
      expect(h.sink.messages("ack").at(-1)).to.deep.include({ accepted_frames_total: 6 });
    });

    it("through the replica's batch, a checkpoint called for by checkpointMaxFrames is written at once", async () => {
      // A wait no test sits through: only a checkpoint that skips the batch is written in time.
      const h = attach({ batchWaitMs: 60_000, durability: { checkpointMaxFrames: 3 } });
      h.session.onFrames(TWO_REPS.slice(0, 3));
      expect(await progressWrites(h)).to.equal(1);
      expect(h.sink.messages("ack")).to.deep.equal([
        { type: "ack", accepted_frames_total: 3, last_seq: 2 },
      ]);
    });

    it("spreads the first checkpoints of sessions attached together over the interval", async () => {
      // Each session's first falls at its own point of the first interval (Math.random): 20 of
      // them in one 500 ms step has a chance of 1e-19.
      const sessions = Array.from({ length: 20 }, () => attach());
      for (const h of sessions) h.session.onFrames(TWO_REPS.slice(0, 3));
      const firstAt = new Set<number>();
      for (let step = 0; step <= 10; step++) {
        for (const h of sessions) {
          h.clock.now = T0 + step * 500;
          if (h.store.callsOf("saveProgress").length > 0) continue;
          h.session.tick();
          if ((await progressWrites(h)) > 0) firstAt.add(step);
        }
      }
      expect(sessions.every((h) => h.store.callsOf("saveProgress").length === 1)).to.equal(true);
      expect(firstAt.size).to.be.above(1);
    });

    it("checkpoints at a frame once the interval passed", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 3));
      await h.session.checkpoint();
      h.clock.now = T0 + 4999;
      h.session.onFrames([TWO_REPS[3]]);
      expect(await progressWrites(h)).to.equal(1);
      h.clock.now = T0 + 5000;
      h.session.onFrames([TWO_REPS[4]]);
      expect(await progressWrites(h)).to.equal(2);
    });

    it("writes one checkpoint at a time", async () => {
      const h = attach({ durability: { checkpointMaxFrames: 3 } });
      const gate = h.store.faults.hold("saveProgress");
      h.session.onFrames(TWO_REPS.slice(0, 3));
      await gate.entered;
      const inFlight = h.session.checkpoint();
      h.session.onFrames(TWO_REPS.slice(3, 9));
      expect(h.session.checkpoint()).to.equal(inFlight);
      expect(await progressWrites(h)).to.equal(1);
      gate.open();
      await inFlight;
      expect(h.sink.messages("ack")).to.deep.equal([
        { type: "ack", accepted_frames_total: 3, last_seq: 2 },
      ]);
      h.session.onFrames([TWO_REPS[9]]);
      expect(await progressWrites(h)).to.equal(2);
    });

    it("a failed checkpoint is counted and logged; the next one writes the same records again", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 23));
      h.records.faults.fail("save");
      await h.session.checkpoint();
      expect(h.session.isOpen).to.equal(true);
      expect(h.sink.messages("ack")).to.deep.equal([]);
      expect(await metricValue(h.metrics.checkpoints, { result: "failed" })).to.equal(1);
      expect(h.log.map((l) => `${l.level} ${l.message}`)).to.deep.equal(["warn checkpoint failed"]);
      h.store.faults.fail("saveProgress");
      await h.session.checkpoint();
      expect(await metricValue(h.metrics.checkpoints, { result: "failed" })).to.equal(2);
      await h.session.checkpoint();
      expect(h.sink.messages("ack")).to.have.length(1);
      // Chunk 0 written three times, the same record; the checkpoint counts one chunk.
      const saves = h.records.calls.map((c) => c.args.slice(1, 2));
      expect(saves).to.deep.equal([[0], [0], [0]]);
      expect(h.records.calls[2].args[3]).to.deep.equal(h.records.calls[0].args[3]);
      expect(progressOf(h, 1).progress.checkpoint?.record_chunks).to.equal(1);
      expect(h.store.callsOf("saveProgress")).to.have.length(2);
    });

    it("a checkpoint that finds the session finalizing (finalized through the API) ends it completed", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 10));
      h.store.status = "finalizing";
      await h.session.checkpoint();
      await untilDetached(h);
      expect(h.store.callsOf("requestFinalize")).to.have.length(0);
      expect(terminalOf(h).status).to.equal("completed");
      expect(h.sink.trace.slice(-3)).to.deep.equal([
        "event session.summary",
        "end completed",
        `close ${CloseCode.normal}`,
      ]);
    });
  });

  describe("the lease lost", () => {
    it("at a checkpoint: LEASE_LOST, closed 4409, gone, and nothing written after", async () => {
      const h = attach({ status: "streaming", durability: { checkpointMaxFrames: 5 } });
      h.store.takeOver();
      h.session.onFrames(TWO_REPS.slice(0, 5));
      await h.session.checkpoint();
      expect(h.session.isOpen).to.equal(false);
      expect(h.sink.messages()).to.deep.include({
        type: "error",
        code: StreamError.leaseLost,
        message: "another attachment of this session took over",
      });
      expect(h.sink.messages("ack")).to.deep.equal([]);
      expect(h.sink.closes).to.deep.equal([
        { code: CloseCode.replaced, reason: StreamError.leaseLost.toLowerCase() },
      ]);
      expect(h.detached).to.deep.equal([h.session]);
      expect(await metricValue(h.metrics.checkpoints, { result: "lease_lost" })).to.equal(1);
      h.session.finalize();
      h.session.tick();
      await h.session.release("client_gone");
      await h.session.checkpoint();
      await flush();
      expect(h.store.calls.map((c) => c.method)).to.deep.equal(["saveProgress"]);
      expect(h.detached).to.have.length(1);
    });

    it("at a checkpoint's records (a newer holder wrote the chunk): the progress is not written", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 23));
      h.records.chunks.set(0, { epoch: 4, records: { reps: [], holds: [] } });
      await h.session.checkpoint();
      expect(h.store.callsOf("saveProgress")).to.have.length(0);
      expect(h.sink.messages("error").map((m) => m.code)).to.deep.equal([StreamError.leaseLost]);
      expect(h.detached).to.have.length(1);
    });

    it("at the end write: LEASE_LOST, closed 4409, no end message, the records kept", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 23));
      await h.session.checkpoint();
      h.store.takeOver();
      h.session.finalize();
      await untilDetached(h);
      expect(h.store.callsOf("end")).to.have.length(1);
      expect(h.sink.messages("end")).to.deep.equal([]);
      expect(h.sink.trace.slice(-2)).to.deep.equal([
        `error ${StreamError.leaseLost}`,
        `close ${CloseCode.replaced}`,
      ]);
      expect(h.records.calls.map((c) => c.method)).not.to.include("removeAll");
      expect(h.settled).to.deep.equal([]);
    });

    it("at the finalizing write: the newer attachment's session stays streaming, LEASE_LOST, closed 4409", async () => {
      const h = attach({ status: "streaming" });
      // Repetitions recorded: the end writes `finalizing` first.
      h.session.onFrames(TWO_REPS);
      h.store.takeOver();
      h.session.finalize();
      await untilDetached(h);
      expect(h.store.callsOf("requestFinalize")).to.have.length(1);
      expect(h.store.status).to.equal("streaming");
      expect(h.sink.messages("end")).to.deep.equal([]);
      expect(h.sink.trace.slice(-2)).to.deep.equal([
        `error ${StreamError.leaseLost}`,
        `close ${CloseCode.replaced}`,
      ]);
      expect(h.settled).to.deep.equal([]);
    });

    it("at a release: logged nowhere as an error, the session gone", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.store.takeOver();
      await h.session.release("client_gone");
      expect(h.detached).to.have.length(1);
      expect(h.settled).to.deep.equal([]);
      expect(h.log).to.deep.equal([]);
    });
  });

  describe("flow control", () => {
    it("stops reading when maxUnackedFrames are unacked, and reads again at the ack", async () => {
      const h = attach({ durability: { checkpointMaxFrames: 4, maxUnackedFrames: 6 } });
      const gate = h.store.faults.hold("saveProgress");
      h.session.onFrames(TWO_REPS.slice(0, 4));
      h.session.onFrames(TWO_REPS.slice(4, 5));
      expect(h.sink.pauses).to.equal(0);
      h.session.onFrames(TWO_REPS.slice(5, 6));
      expect(h.sink.pauses).to.equal(1);
      expect([...h.session.pausedCauses]).to.deep.equal(["unacked"]);
      h.session.onFrames(TWO_REPS.slice(6, 8));
      expect(h.sink.pauses).to.equal(1);
      gate.open();
      await h.session.checkpoint();
      expect(h.sink.trace.slice(-2)).to.deep.equal(["ack", "resume"]);
      expect([...h.session.pausedCauses]).to.deep.equal([]);
    });

    it("stops reading a slow reader until its buffer is down to a quarter of the high-water mark", async () => {
      const h = attach({ durability: { outboundHighWaterBytes: 4096 } });
      h.sink.buffered = 4095;
      h.session.onFrames(TWO_REPS.slice(0, 1));
      expect(h.sink.pauses).to.equal(0);
      h.sink.buffered = 4096;
      h.session.onFrames(TWO_REPS.slice(1, 2));
      expect(h.sink.pauses).to.equal(1);
      expect([...h.session.pausedCauses]).to.deep.equal(["outbound"]);
      h.sink.buffered = 1025;
      const reads = h.sink.bufferedReads;
      await eventually(() => h.sink.bufferedReads >= reads + 3, 5000, 1);
      expect(h.sink.reading).to.equal(false);
      h.sink.buffered = 1024;
      await eventually(() => h.sink.reading, 5000, 1);
      expect([...h.session.pausedCauses]).to.deep.equal([]);
    });

    it("reads again only once both causes are gone", async () => {
      const h = attach({
        durability: {
          checkpointMaxFrames: 1000,
          maxUnackedFrames: 2,
          outboundHighWaterBytes: 4096,
        },
      });
      h.sink.buffered = 5000;
      h.session.onFrames(TWO_REPS.slice(0, 2));
      expect(new Set(h.session.pausedCauses)).to.deep.equal(new Set(["unacked", "outbound"]));
      h.sink.buffered = 0;
      await eventually(() => !h.session.pausedCauses.has("outbound"), 5000, 1);
      expect(h.sink.reading).to.equal(false);
      await h.session.checkpoint();
      expect(h.sink.reading).to.equal(true);
      expect(h.sink.pauses).to.equal(1);
    });

    it("does not read again, nor watch the buffer, once the session stopped", async () => {
      const h = attach({ durability: { outboundHighWaterBytes: 4096 } });
      h.sink.buffered = 4096;
      h.session.onFrames(TWO_REPS.slice(0, 1));
      h.session.onFrames(TWO_REPS.slice(1, 2));
      h.session.abandon(StreamError.leaseLost, "gone", CloseCode.replaced);
      const reads = h.sink.bufferedReads;
      h.sink.buffered = 0;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(h.sink.bufferedReads).to.equal(reads);
      expect(h.sink.resumes).to.equal(0);
    });
  });

  describe("the end", () => {
    it("finalize: the last events, the terminal write under the lease, then end and a normal close", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 23));
      await h.session.checkpoint();
      h.session.onFrames(TWO_REPS.slice(23));
      h.clock.now = T0 + 42_000;
      h.session.finalize();
      expect(h.session.isOpen).to.equal(false);
      await untilDetached(h);
      expect(h.store.calls.map((c) => c.method)).to.deep.equal([
        "saveProgress",
        "requestFinalize",
        "end",
      ]);
      expect(h.store.callsOf("requestFinalize")[0].args).to.deep.equal([
        SESSION_ID,
        "streaming",
        new Date(T0 + 42_000),
        3,
      ]);
      const [sessionId, epoch, terminal] = h.store.callsOf("end")[0].args as [
        string,
        number,
        TerminalWrite,
      ];
      expect([sessionId, epoch]).to.deep.equal([SESSION_ID, 3]);
      expect(terminal).to.deep.include({
        status: "completed",
        ended_at: new Date(T0 + 42_000),
        accepted_frames_total: TWO_REPS.length,
        last_seq: TWO_REPS.length - 1,
        error_code: undefined,
        error_message: undefined,
      });
      // The summary is the whole session.summary event: both repetitions, the first read back
      // from the record store, sent as the last event and written as terminal_outcome.
      const summary = JSON.parse(terminal.terminal_outcome ?? "");
      expect(summary.type).to.equal("session.summary");
      expect(
        summary.reps.map((r: { count: number; side: string }) => `${r.side}${r.count}`),
      ).to.have.members(["left1", "right1", "left2", "right2"]);
      // No checkpoint with the terminal state: nothing resumes an ended session.
      expect(terminal).not.to.have.property("checkpoint");
      const events = h.sink.messages("event");
      expect(events.at(-1).event).to.deep.equal(summary);
      const [end] = h.sink.messages("end");
      expect(end).to.deep.equal({
        type: "end",
        status: "completed",
        accepted_frames_total: TWO_REPS.length,
        terminal_outcome: terminal.terminal_outcome,
      });
      expect(h.sink.trace.slice(-3)).to.deep.equal([
        "event session.summary",
        "end completed",
        `close ${CloseCode.normal}`,
      ]);
      expect(h.sink.closes).to.deep.equal([{ code: CloseCode.normal, reason: "completed" }]);
      expect(h.records.calls.map((c) => c.method)).to.deep.equal(["save", "list", "removeAll"]);
      expect(h.detached).to.deep.equal([h.session]);
      expect(h.settled).to.deep.equal([]);
    });

    it("is written once, however often finalize comes", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.finalize();
      h.session.finalize();
      h.session.tick();
      await untilDetached(h);
      h.session.finalize();
      await flush();
      expect(h.store.callsOf("end")).to.have.length(1);
      expect(h.sink.messages("end")).to.have.length(1);
      expect(h.detached).to.have.length(1);
    });

    it("waits for a checkpoint in flight, and builds and sends the summary in event-loop turns of their own", async () => {
      class CountedTurns extends TurnQueue {
        taken = 0;
        override next(): Promise<void> {
          this.taken += 1;
          return super.next();
        }
      }
      const turns = new CountedTurns();
      const h = attach({ status: "streaming", turns });
      h.session.onFrames(TWO_REPS.slice(0, 23));
      const gate = h.store.faults.hold("saveProgress");
      const checkpoint = h.session.checkpoint();
      await gate.entered;
      h.session.finalize();
      await flush(10);
      expect(h.store.callsOf("end")).to.have.length(0);
      expect(turns.taken).to.equal(0);
      gate.open();
      await checkpoint;
      await untilDetached(h);
      expect(turns.taken).to.equal(2);
      expect(terminalOf(h)).not.to.have.property("checkpoint");
    });

    it("keeps the summary within summaryMaxBytes: the totals whole, the lists cut", async () => {
      const h = attach({ status: "streaming", limits: { summaryMaxBytes: 1024 } });
      h.session.onFrames(repetitions(6));
      h.session.finalize();
      await untilDetached(h);
      const text = terminalOf(h).terminal_outcome ?? "";
      expect(Buffer.byteLength(text)).to.be.at.most(1024);
      const summary = JSON.parse(text);
      expect(summary.counts).to.deep.equal({ left: 6, right: 6 });
      expect(summary.reps_omitted).to.be.above(0);
      expect(summary.reps.length + summary.reps_omitted).to.equal(12);
    });

    it("a missing record chunk is logged as an error; the session still ends", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 23));
      await h.session.checkpoint();
      h.records.chunks.delete(0);
      h.session.finalize();
      await untilDetached(h);
      const errors = h.log.filter((l) => l.level === "error");
      expect(errors.map((l) => [l.message, l.fields.missing_chunks])).to.deep.equal([
        ["record chunks missing: the summary lists fewer records than it counts", 1],
      ]);
      expect(terminalOf(h).status).to.equal("completed");
    });

    it("a failed end write: SERVICE_UNAVAILABLE, closed 1011, the session handed to settlement", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.store.faults.fail("end");
      h.session.finalize();
      await untilDetached(h);
      expect(h.sink.messages("end")).to.deep.equal([]);
      expect(h.sink.trace.slice(-2)).to.deep.equal([
        `error ${StreamError.serviceUnavailable}`,
        `close ${CloseCode.internal}`,
      ]);
      expect(h.settled).to.deep.equal([SESSION_ID]);
      expect(h.log.map((l) => `${l.level} ${l.message}`)).to.deep.equal([
        "error ending the session failed",
      ]);
    });

    it("a failed finalize request: the same, nothing else written", async () => {
      const h = attach({ status: "streaming" });
      // A repetition recorded: the end writes `finalizing` before it reads the records back.
      h.session.onFrames(TWO_REPS);
      h.store.faults.fail("requestFinalize");
      h.session.finalize();
      await untilDetached(h);
      expect(h.store.callsOf("end")).to.have.length(0);
      expect(h.sink.messages("event").map((m) => m.event.type)).not.to.include("session.summary");
      expect(h.settled).to.deep.equal([SESSION_ID]);
    });

    it("nothing recorded and no checkpoint in flight: the terminal write alone, with finalize_requested_at; nothing to remove at the first lease", async () => {
      const h = attach({ status: "streaming", epoch: 1 });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.clock.now = T0 + 7_000;
      h.session.finalize();
      await untilDetached(h);
      expect(h.store.calls.map((c) => c.method)).to.deep.equal(["end"]);
      expect(terminalOf(h)).to.deep.include({
        status: "completed",
        finalize_requested_at: new Date(T0 + 7_000),
        accepted_frames_total: 5,
      });
      expect(h.sink.messages("end").map((m) => m.status)).to.deep.equal(["completed"]);
      expect(recordWrites(h)).to.deep.equal([]);
    });

    it("repetitions recorded: finalizing written first; chunks removed only if some were written", async () => {
      const kept = attach({ status: "streaming", epoch: 1 });
      kept.session.onFrames(TWO_REPS);
      kept.session.finalize();
      await untilDetached(kept);
      expect(kept.store.calls.map((c) => c.method)).to.deep.equal(["requestFinalize", "end"]);
      expect(terminalOf(kept).finalize_requested_at).to.equal(undefined);
      expect(terminalOf(kept).terminal_outcome).to.include('"count":2');
      // Still in the engine at the end: no chunk was written, none to remove.
      expect(recordWrites(kept)).to.deep.equal([]);

      const chunked = attach({ status: "streaming", epoch: 1 });
      chunked.session.onFrames(TWO_REPS);
      await chunked.session.checkpoint();
      chunked.session.finalize();
      await untilDetached(chunked);
      expect(chunked.store.calls.map((c) => c.method)).to.deep.equal([
        "saveProgress",
        "requestFinalize",
        "end",
      ]);
      expect(recordWrites(chunked)).to.deep.equal(["save", "removeAll"]);
    });

    it("nothing recorded at a later lease: what an earlier attachment may have stored is removed", async () => {
      const h = attach({ status: "streaming", epoch: 2 });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.session.finalize();
      await untilDetached(h);
      expect(h.store.calls.map((c) => c.method)).to.deep.equal(["end"]);
      expect(recordWrites(h)).to.deep.equal(["removeAll"]);
    });

    it("a release during the end write waits for the end and writes nothing more", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 23));
      const gate = h.store.faults.hold("end");
      h.session.finalize();
      await gate.entered;
      let released = false;
      const release = h.session.release("replaced").then(() => (released = true));
      await flush(10);
      expect(released).to.equal(false);
      expect(h.sink.messages("error")).to.deep.equal([]);
      gate.open();
      await release;
      expect(h.detached).to.have.length(1);
      expect(h.store.callsOf("saveProgress")).to.have.length(0);
      expect(h.sink.closes).to.deep.equal([{ code: CloseCode.normal, reason: "completed" }]);
      expect(h.sink.messages("end")).to.have.length(1);
    });

    it("sessions sharing the replica's gate end one at a time, in the order they finalized", async () => {
      const ends = createAdmissionGate({ inFlight: 1, queueLimit: Number.POSITIVE_INFINITY });
      const first = attach({ status: "streaming", ends });
      const second = attach({ status: "streaming", ends });
      first.session.onFrames(TWO_REPS.slice(0, 23));
      second.session.onFrames(TWO_REPS.slice(0, 23));
      const held = first.store.faults.hold("end");
      first.session.finalize();
      await held.entered;
      second.session.finalize();
      await flush(10);
      // The second end waits for the first's place: no write, no summary sent yet.
      expect(second.store.calls.map((c) => c.method)).to.deep.equal([]);
      expect(second.sink.messages("end")).to.deep.equal([]);
      expect(ends.waiting).to.equal(1);
      held.open();
      await untilDetached(first);
      await untilDetached(second);
      expect(second.store.callsOf("end")).to.have.length(1);
      expect(second.sink.messages("end")).to.have.length(1);
      expect([ends.running, ends.waiting]).to.deep.equal([0, 0]);
    });

    it("a failed end gives its place to the next", async () => {
      const ends = createAdmissionGate({ inFlight: 1, queueLimit: Number.POSITIVE_INFINITY });
      const first = attach({ status: "streaming", ends });
      const second = attach({ status: "streaming", ends });
      first.store.faults.fail("end");
      first.session.finalize();
      second.session.finalize();
      await untilDetached(first);
      await untilDetached(second);
      expect(first.sink.closes[0]?.code).to.equal(CloseCode.internal);
      expect(second.sink.closes).to.deep.equal([{ code: CloseCode.normal, reason: "completed" }]);
      expect([ends.running, ends.waiting]).to.deep.equal([0, 0]);
    });

    it("once the session ended, a release does nothing", async () => {
      const h = attach({ status: "streaming" });
      h.session.finalize();
      await untilDetached(h);
      await h.session.release("shutdown");
      expect(h.store.callsOf("saveProgress")).to.have.length(0);
      expect(h.sink.closes).to.have.length(1);
    });

    it("a tick ends the session at its maximum duration: failed, SESSION_MAX_DURATION_EXCEEDED, 1008", async () => {
      const h = attach({ status: "streaming", expiresInMs: 60_000 });
      h.clock.now = T0 + 59_999;
      h.session.touch();
      h.session.tick();
      expect(h.session.isOpen).to.equal(true);
      h.clock.now = T0 + 60_000;
      h.session.tick();
      expect(h.session.isOpen).to.equal(false);
      await untilDetached(h);
      expect(terminalOf(h)).to.deep.include({
        status: "failed",
        error_code: EndReason.maxDuration,
        error_message: "the session reached its maximum duration",
      });
      expect(h.sink.messages("error")).to.deep.equal([
        {
          type: "error",
          code: EndReason.maxDuration,
          message: "the session reached its maximum duration",
        },
      ]);
      expect(h.sink.closes).to.deep.equal([{ code: CloseCode.policy, reason: "failed" }]);
      expect(h.store.callsOf("requestFinalize")).to.have.length(0);
    });

    it("a tick ends a session silent for idleTimeoutMs: cancelled, IDLE_TIMEOUT, 1000; any message counts", async () => {
      const h = attach({ status: "streaming", limits: { idleTimeoutMs: 10_000 } });
      h.clock.now = T0 + 9_999;
      h.session.tick();
      h.session.touch();
      h.clock.now = T0 + 19_998;
      h.session.tick();
      expect(h.session.isOpen).to.equal(true);
      h.clock.now = T0 + 19_999;
      h.session.tick();
      expect(h.session.isOpen).to.equal(false);
      await untilDetached(h);
      expect(terminalOf(h)).to.deep.include({
        status: "cancelled",
        error_code: EndReason.idleTimeout,
        error_message: "no message for longer than the idle timeout",
      });
      expect(h.sink.closes).to.deep.equal([{ code: CloseCode.normal, reason: "cancelled" }]);
    });
  });

  describe("release and abandon", () => {
    for (const [reason, told, close] of [
      ["client_gone", [], []],
      [
        "replaced",
        [StreamError.replaced, "another attachment of this session took over"],
        [{ code: CloseCode.replaced, reason: "replaced by another attachment" }],
      ],
      [
        "shutdown",
        [StreamError.serviceRestarting, "the service is restarting: reconnect to resume"],
        [{ code: CloseCode.goingAway, reason: "service restarting" }],
      ],
    ] as const) {
      it(`release (${reason}): the client told and closed as the contract says, progress written with the lease released`, async () => {
        const h = attach({ status: "streaming" });
        h.session.onFrames(TWO_REPS.slice(0, 23));
        h.clock.now = T0 + 700;
        h.session.touch();
        h.clock.now = T0 + 900;
        const released = h.session.release(reason);
        expect(h.session.isOpen).to.equal(false);
        expect(h.session.release(reason)).to.equal(released);
        const errors = h.sink.messages("error").map((m) => [m.code, m.message]);
        expect(errors).to.deep.equal(told.length ? [told] : []);
        expect(h.sink.closes).to.deep.equal(close);
        expect(h.detached).to.have.length(0);
        await released;
        expect(h.detached).to.deep.equal([h.session]);
        expect(h.store.callsOf("saveProgress")).to.have.length(1);
        const { progress, release } = progressOf(h);
        expect(release).to.equal(true);
        expect(progress).to.deep.include({
          accepted_frames_total: 23,
          last_seq: 22,
          last_activity_at: new Date(T0 + 700),
        });
        expect(progress.checkpoint).to.deep.include({ record_chunks: 1, at: new Date(T0 + 900) });
        expect(h.records.chunks.size).to.equal(1);
        expect(h.store.leased).to.equal(false);
        expect(h.sink.messages("ack")).to.deep.equal([]);
      });
    }

    it("release of a session that took no frame writes no last_seq", async () => {
      const h = attach();
      await h.session.release("client_gone");
      const { progress } = progressOf(h);
      expect(progress).to.deep.include({ accepted_frames_total: 0, last_seq: undefined });
      expect(progress.checkpoint).to.deep.include({ accepted_frames_total: 0, last_seq: -1 });
    });

    it("release waits for a checkpoint in flight before its own write", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 5));
      const gate = h.store.faults.hold("saveProgress");
      const checkpoint = h.session.checkpoint();
      await gate.entered;
      h.session.onFrames(TWO_REPS.slice(5, 8));
      const released = h.session.release("client_gone");
      await flush(10);
      expect(h.store.callsOf("saveProgress")).to.have.length(1);
      gate.open();
      await Promise.all([checkpoint, released]);
      expect(h.store.callsOf("saveProgress").map((c) => c.args[3])).to.deep.equal([false, true]);
      expect(progressOf(h, 1).progress.accepted_frames_total).to.equal(8);
      // The checkpoint's ack is not sent once the session is let go.
      expect(h.sink.messages("ack")).to.deep.equal([]);
    });

    it("a session released while finalizing is handed to settlement", async () => {
      const h = attach({ status: "streaming" });
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.store.status = "finalizing";
      await h.session.release("client_gone");
      expect(h.settled).to.deep.equal([SESSION_ID]);
    });

    it("a failed release write is logged; the session is gone all the same", async () => {
      const h = attach();
      h.session.onFrames(TWO_REPS.slice(0, 5));
      h.store.faults.fail("saveProgress");
      await h.session.release("shutdown");
      expect(h.log.map((l) => `${l.level} ${l.message}`)).to.deep.equal([
        "warn final checkpoint failed",
      ]);
      expect(h.detached).to.have.length(1);
      expect(h.settled).to.deep.equal([]);
    });

    it("abandon stops at once and writes nothing, whatever comes after", async () => {
      const h = attach({ status: "streaming", durability: { checkpointMaxFrames: 5 } });
      h.session.onFrames(TWO_REPS.slice(0, 4));
      h.session.abandon(
        StreamError.serviceUnavailable,
        "this replica lost contact with the session store: reconnect to resume",
        CloseCode.internal,
      );
      expect(h.session.isOpen).to.equal(false);
      expect(h.sink.messages("error")).to.deep.equal([
        {
          type: "error",
          code: StreamError.serviceUnavailable,
          message: "this replica lost contact with the session store: reconnect to resume",
        },
      ]);
      expect(h.sink.closes).to.deep.equal([
        { code: CloseCode.internal, reason: "service_unavailable" },
      ]);
      expect(h.detached).to.deep.equal([h.session]);
      h.session.abandon(StreamError.leaseLost, "again", CloseCode.replaced);
      h.session.finalize();
      h.clock.now = T0 + 10 * 3_600_000;
      h.session.tick();
      await h.session.release("shutdown");
      await h.session.checkpoint();
      await flush();
      expect(h.store.calls).to.deep.equal([]);
      expect(h.records.calls).to.deep.equal([]);
      expect(h.sink.closes).to.have.length(1);
      expect(h.detached).to.have.length(1);
    });
  });
});
