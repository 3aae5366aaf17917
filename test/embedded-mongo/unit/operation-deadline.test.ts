import { expect } from "chai";
import type { MongoCommandError } from "../../../services/embedded-mongo/errors.js";
import {
  currentDeadline,
  Deadline,
  MAX_TIME_MS_LIMIT,
  parseMaxTimeMS,
} from "../../../services/embedded-mongo/operation-deadline.js";
import { unrolledSize } from "../../../services/embedded-mongo/query/bounded-regex.js";

/** A clock the test moves by hand, counting its reads. */
function handClock(start = 1000) {
  const clock = { now: start, reads: 0, read: () => 0 };
  clock.read = () => {
    clock.reads++;
    return clock.now;
  };
  return clock;
}

function codeOf(run: () => void): number | undefined {
  try {
    run();
  } catch (error) {
    return (error as MongoCommandError).code;
  }
  return undefined;
}

describe("embedded-mongo operation deadline", () => {
  it("expires exactly at maxTimeMS: one millisecond before it passes, at it MaxTimeMSExpired (50)", () => {
    const clock = handClock();
    const deadline = new Deadline(100, 0, clock.read);
    clock.now += 99;
    expect(codeOf(() => deadline.check())).to.equal(undefined);
    clock.now += 1;
    expect(codeOf(() => deadline.check())).to.equal(50);
  });

  it("the server's limit and the client's: the shorter one ends the work", () => {
    const clock = handClock();
    const client = new Deadline(500, 200, clock.read);
    const server = new Deadline(100, 200, clock.read);
    clock.now += 150;
    expect(codeOf(() => client.check())).to.equal(undefined);
    expect(codeOf(() => server.check())).to.equal(50);
    clock.now += 50;
    expect(codeOf(() => client.check())).to.equal(50);
  });

  it("resume() restarts the server's limit after a wait, never the client's maxTimeMS", () => {
    const clock = handClock();
    const serverOnly = new Deadline(0, 100, clock.read);
    const both = new Deadline(300, 100, clock.read);
    clock.now += 250; // waited for a lock
    serverOnly.resume();
    both.resume();
    clock.now += 99;
    expect(codeOf(() => serverOnly.check())).to.equal(undefined);
    expect(codeOf(() => both.check())).to.equal(50); // 349 ms past its start > 300
  });

  it("tick() reads the clock once per 16 calls; no limit never reads it", () => {
    const clock = handClock();
    const deadline = new Deadline(100, 0, clock.read);
    const readsAtStart = clock.reads;
    for (let i = 0; i < 32; i++) deadline.tick();
    expect(clock.reads - readsAtStart).to.equal(2);
    const none = new Deadline(0, 0, clock.read);
    const before = clock.reads;
    for (let i = 0; i < 32; i++) none.tick();
    none.check();
    expect(clock.reads).to.equal(before);
  });

  it("run() makes it the current deadline for synchronous work, and restores the previous one", () => {
    const deadline = new Deadline(100, 0, handClock().read);
    expect(currentDeadline()).to.equal(Deadline.none);
    const inside = deadline.run(() => currentDeadline());
    expect(inside).to.equal(deadline);
    expect(() =>
      deadline.run(() => {
        throw new Error("boom");
      }),
    ).to.throw("boom");
    expect(currentDeadline()).to.equal(Deadline.none);
  });

  it("parseMaxTimeMS: 0 to 2^31 - 1 (absent is 0); past either end, fractions and non-numbers are BadValue", () => {
    expect(parseMaxTimeMS(undefined)).to.equal(0);
    expect(parseMaxTimeMS(0)).to.equal(0);
    expect(parseMaxTimeMS(MAX_TIME_MS_LIMIT)).to.equal(2_147_483_647);
    for (const refused of [MAX_TIME_MS_LIMIT + 1, -1, 1.5, "10", true, {}]) {
      expect(
        codeOf(() => parseMaxTimeMS(refused)),
        String(refused),
      ).to.equal(2);
    }
  });
});

describe("embedded-mongo regex pattern size estimate (unrolledSize)", () => {
  const cases: Array<[string, number]> = [
    ["abc", 3],
    ["a{1000}", 1000],
    ["a{2,5}", 8], // five copies, three of them optional
    ["a{2,}", 4],
    ["(x{10}){10}", 10 * 12], // the group's capture counts in each copy
    ["[a-z\\]]{3}", 3], // a class is one position, escaped bracket inside
    ["\\p{L}{4}", 4],
    ["a|b", 3],
    ["{x}", 3], // not a counted repetition: literal braces
  ];
  for (const [pattern, size] of cases) {
    it(`${pattern} unrolls to ${size}`, () => {
      expect(unrolledSize(pattern)).to.equal(size);
    });
  }
});
