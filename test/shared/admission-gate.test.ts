/**
 * The admission gate (services/shared/process/admission-gate.ts): how many run at once, who
 * waits, in what order, and when the queue refuses.
 */

import {
  type AdmissionGate,
  createAdmissionGate,
  type Leave,
} from "@movement-detection/shared/process";
import { expect } from "chai";
import { loadGatewayConfig } from "../../gateway/config.js";
import { loadDetectionConfig } from "../../services/detection/config.js";

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Enters `count` times; returns each entry's place once it has one (undefined: refused). */
function enterMany(gate: AdmissionGate, count: number) {
  const granted: (Leave | undefined)[] = new Array(count).fill(undefined);
  const refused: number[] = [];
  for (let i = 0; i < count; i++) {
    const entered = gate.enter();
    if (!entered) refused.push(i);
    else void entered.then((leave) => (granted[i] = leave));
  }
  return { granted, refused };
}

describe("shared admission gate (a few at a time, the rest in order)", () => {
  it("gives places at once up to inFlight, then queues", async () => {
    const gate = createAdmissionGate({ inFlight: 2, queueLimit: 10 });
    const { granted, refused } = enterMany(gate, 5);
    await settle();
    expect(granted.map(Boolean)).to.deep.equal([true, true, false, false, false]);
    expect(refused).to.deep.equal([]);
    expect([gate.running, gate.waiting]).to.deep.equal([2, 3]);
  });

  it("hands a freed place to the longest waiting, first come first served", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10 });
    const { granted } = enterMany(gate, 4);
    await settle();
    const order: number[] = [];
    for (let step = 0; step < 4; step++) {
      const holder = granted.findIndex((leave, i) => leave && !order.includes(i));
      order.push(holder);
      granted[holder]?.();
      await settle();
    }
    expect(order).to.deep.equal([0, 1, 2, 3]);
    expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
  });

  it("queues exactly queueLimit and refuses the next one", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 3 });
    const { refused } = enterMany(gate, 1 + 3 + 2);
    expect(refused).to.deep.equal([4, 5]);
    expect([gate.running, gate.waiting]).to.deep.equal([1, 3]);
  });

  it("with queueLimit 0, refuses whatever finds every place taken", async () => {
    const gate = createAdmissionGate({ inFlight: 2, queueLimit: 0 });
    const { refused } = enterMany(gate, 3);
    expect(refused).to.deep.equal([2]);
  });

  it("takes a place again once a refusal's cause is gone", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 0 });
    const first = await gate.enter();
    expect(gate.enter()).to.equal(undefined);
    first?.();
    const again = gate.enter();
    expect(again).to.not.equal(undefined);
    (await again)?.();
    expect(gate.running).to.equal(0);
  });

  it("a place left twice frees it once", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10 });
    const { granted } = enterMany(gate, 3);
    await settle();
    const leave = granted[0];
    leave?.();
    leave?.();
    await settle();
    // One place freed: the second holds it, the third still waits.
    expect(granted.map(Boolean)).to.deep.equal([true, true, false]);
    expect([gate.running, gate.waiting]).to.deep.equal([1, 1]);
  });

  it("an aborted waiter leaves the queue, rejected with the signal's reason; the others keep their order", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10 });
    const first = await gate.enter();
    const abort = new AbortController();
    const quitter = gate.enter(abort.signal);
    const patient = gate.enter(new AbortController().signal);
    expect(gate.waiting).to.equal(2);
    abort.abort(new Error("waited too long"));
    await quitter?.then(
      () => expect.fail("an aborted waiter got a place"),
      (error: Error) => expect(error.message).to.equal("waited too long"),
    );
    expect(gate.waiting).to.equal(1);
    first?.();
    const leave = await patient;
    expect([gate.running, gate.waiting]).to.deep.equal([1, 0]);
    leave?.();
    expect(gate.running).to.equal(0);
  });

  it("a signal aborted after its place was given changes nothing, the queue behind it included", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10 });
    const first = await gate.enter();
    const abort = new AbortController();
    const second = gate.enter(abort.signal);
    const third = gate.enter();
    first?.();
    const leave = await second;
    abort.abort();
    await settle();
    // The third still waits (an abort handler left behind would have taken it out).
    expect([gate.running, gate.waiting]).to.deep.equal([1, 1]);
    leave?.();
    (await third)?.();
    expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
  });

  it("open lets every waiter in at once, and every later one", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 2 });
    const { granted } = enterMany(gate, 3);
    await settle();
    gate.open();
    await settle();
    expect(granted.map(Boolean)).to.deep.equal([true, true, true]);
    const later = enterMany(gate, 5);
    await settle();
    expect(later.granted.map(Boolean)).to.deep.equal([true, true, true, true, true]);
    expect([gate.running, gate.waiting]).to.deep.equal([8, 0]);
    for (const leave of [...granted, ...later.granted]) leave?.();
    expect(gate.running).to.equal(0);
  });

  it("a signal already aborted is refused at once, even with a place free", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10 });
    const entered = gate.enter(AbortSignal.abort(new Error("gone")));
    await entered?.then(
      () => expect.fail("an aborted signal got a place"),
      (error: Error) => expect(error.message).to.equal("gone"),
    );
    expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
  });

  it("with holdLimitMs, a place held that long goes to the next waiter; leaving late frees nothing more", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10, holdLimitMs: 30 });
    const started = performance.now();
    const slow = await gate.enter();
    const waiting = gate.enter();
    let granted = false;
    void waiting?.then(() => (granted = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(granted).to.equal(false);
    const next = await waiting;
    expect(performance.now() - started).to.be.at.least(29);
    // The slow one's place went to the next: one place held, nobody waiting.
    expect([gate.running, gate.waiting]).to.deep.equal([1, 0]);
    slow?.();
    expect(gate.running).to.equal(1);
    next?.();
    expect(gate.running).to.equal(0);
  });

  it("with holdLimitMs, a place left in time is not taken back later", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: 10, holdLimitMs: 20 });
    (await gate.enter())?.();
    const second = await gate.enter();
    const third = gate.enter();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The first place's timer, had it stayed armed, would now free the second's place early.
    expect(gate.waiting).to.equal(1);
    second?.();
    (await third)?.();
    expect(gate.running).to.equal(0);
  });

  it("queues without limit when queueLimit is Infinity", async () => {
    const gate = createAdmissionGate({ inFlight: 1, queueLimit: Number.POSITIVE_INFINITY });
    const { refused } = enterMany(gate, 10_001);
    expect(refused).to.deep.equal([]);
    expect(gate.waiting).to.equal(10_000);
  });

  for (const inFlight of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses inFlight ${inFlight}`, () => {
      expect(() => createAdmissionGate({ inFlight, queueLimit: 1 })).to.throw(
        RangeError,
        /inFlight/,
      );
    });
  }

  for (const holdLimitMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses holdLimitMs ${holdLimitMs}`, () => {
      expect(() => createAdmissionGate({ inFlight: 1, queueLimit: 1, holdLimitMs })).to.throw(
        RangeError,
        /holdLimitMs/,
      );
    });
  }

  for (const queueLimit of [-1, 0.5, Number.NaN]) {
    it(`refuses queueLimit ${queueLimit}`, () => {
      expect(() => createAdmissionGate({ inFlight: 1, queueLimit })).to.throw(
        RangeError,
        /queueLimit/,
      );
    });
  }
});

describe("the gates' settings (SESSION_CREATIONS_*, DETECTION_SESSION_ENDS_IN_FLIGHT)", () => {
  const settings = [
    {
      name: "SESSION_CREATIONS_IN_FLIGHT",
      read: (env: Record<string, string>) => loadGatewayConfig(env).sessionCreationsInFlight,
      fallback: 1,
      min: 1,
      max: 1000,
    },
    {
      name: "SESSION_CREATIONS_QUEUED",
      read: (env: Record<string, string>) => loadGatewayConfig(env).sessionCreationsQueued,
      fallback: 500,
      min: 0,
      max: 100_000,
    },
    {
      name: "SESSION_CREATIONS_WAIT_MS",
      read: (env: Record<string, string>) => loadGatewayConfig(env).sessionCreationsWaitMs,
      fallback: 10_000,
      min: 100,
      max: 600_000,
    },
    {
      name: "DETECTION_SESSION_ENDS_IN_FLIGHT",
      read: (env: Record<string, string>) => loadDetectionConfig(env).sessionEndsInFlight,
      fallback: 1,
      min: 1,
      max: 1000,
    },
  ];
  for (const { name, read, fallback, min, max } of settings) {
    it(`${name}: ${fallback} by default, ${min} to ${max}, refused just past either end`, () => {
      expect(read({})).to.equal(fallback);
      expect(read({ [name]: String(min) })).to.equal(min);
      expect(read({ [name]: String(max) })).to.equal(max);
      for (const bad of [String(min - 1), String(max + 1), "1.5", "two"]) {
        expect(() => read({ [name]: bad }), bad).to.throw(new RegExp(name));
      }
    });
  }
});
