import { randomUUID } from "node:crypto";
import { createIdGenerator, uuidV7Millis } from "@movement-detection/shared/ids";
import { ttlSeconds } from "@movement-detection/shared/store";
import { expect } from "chai";
import { loadDetectionConfig } from "../../../../services/detection/config.js";
import {
  isPastRetention,
  mayHaveExpired,
  recordChunkTtlMs,
  retentionMs,
} from "../../../../services/detection/domain/session-retention.js";

const DAY_MS = 86_400_000;
/** Any date works: the rules take the clock as an argument. */
const NOW = Date.UTC(2041, 6, 15, 12);
const THIRTY_DAYS = 30 * DAY_MS;

describe("detection session retention rules", () => {
  it("reads the retention in days, 0 being for ever", () => {
    expect(retentionMs(30)).to.equal(THIRTY_DAYS);
    expect(retentionMs(1)).to.equal(DAY_MS);
    expect(retentionMs(0)).to.equal(undefined);
  });

  it("a session is past its retention from exactly the retention after it ended", () => {
    const ended = (ms: number) => ({ ended_at: new Date(NOW - ms) });
    expect(isPastRetention(ended(THIRTY_DAYS - 1), NOW, THIRTY_DAYS)).to.equal(false);
    expect(isPastRetention(ended(THIRTY_DAYS), NOW, THIRTY_DAYS)).to.equal(true);
    expect(isPastRetention(ended(THIRTY_DAYS + 1), NOW, THIRTY_DAYS)).to.equal(true);
    // Active (never ended), or kept for ever.
    expect(isPastRetention({ ended_at: undefined }, NOW, THIRTY_DAYS)).to.equal(false);
    expect(isPastRetention(ended(10 * 365 * DAY_MS), NOW, undefined)).to.equal(false);
  });

  it("an unknown id may name an expired session only if it was made the retention ago or earlier", () => {
    const idMadeAgo = (ms: number) => createIdGenerator(() => NOW - ms)();
    expect(mayHaveExpired(idMadeAgo(THIRTY_DAYS - 1), NOW, THIRTY_DAYS)).to.equal(false);
    expect(mayHaveExpired(idMadeAgo(THIRTY_DAYS), NOW, THIRTY_DAYS)).to.equal(true);
    expect(mayHaveExpired(idMadeAgo(400 * DAY_MS), NOW, THIRTY_DAYS)).to.equal(true);
    expect(mayHaveExpired(idMadeAgo(400 * DAY_MS), NOW, undefined)).to.equal(false);
    // Ids this service never makes carry no time: plain not found.
    expect(mayHaveExpired(randomUUID(), NOW, THIRTY_DAYS)).to.equal(false);
    expect(mayHaveExpired("00000000-0000-7000-8000-000000000000", NOW, THIRTY_DAYS)).to.equal(true);
    expect(mayHaveExpired("not-a-uuid", NOW, THIRTY_DAYS)).to.equal(false);
  });

  it("reads the time back out of a UUIDv7, and nothing out of other strings", () => {
    expect(uuidV7Millis(createIdGenerator(() => NOW)())).to.equal(NOW);
    expect(uuidV7Millis(createIdGenerator(() => 1)())).to.equal(1);
    expect(uuidV7Millis(randomUUID())).to.equal(undefined); // version 4
    // Version 7 but not RFC 9562's variant, and upper case (not an id of this API).
    expect(uuidV7Millis("0190a1b2-c3d4-7e5f-c000-000000000000")).to.equal(undefined);
    expect(uuidV7Millis("0190A1B2-C3D4-7E5F-8000-000000000000")).to.equal(undefined);
  });

  it("keeps a record chunk the maximum duration and the retention; for ever with the sessions", () => {
    expect(recordChunkTtlMs(4 * 3_600_000, THIRTY_DAYS)).to.equal(THIRTY_DAYS + 4 * 3_600_000);
    expect(recordChunkTtlMs(4 * 3_600_000, undefined)).to.equal(undefined);
  });

  it("turns milliseconds into a TTL index's seconds, never sooner", () => {
    expect(ttlSeconds(THIRTY_DAYS)).to.equal(2_592_000);
    expect(ttlSeconds(1001)).to.equal(2);
    expect(ttlSeconds(undefined)).to.equal(undefined);
    // The longest retention (3650 days) with the longest session (7 days) fits an int32.
    expect(ttlSeconds((3650 + 7) * DAY_MS)).to.be.below(2 ** 31);
  });
});

describe("DETECTION_SESSION_RETENTION_DAYS", () => {
  const days = (value?: string) =>
    loadDetectionConfig(value === undefined ? {} : { DETECTION_SESSION_RETENTION_DAYS: value })
      .sessionRetentionDays;

  it("is 30 by default, 0 (for ever) up to 3650", () => {
    expect(days()).to.equal(30);
    expect(days("0")).to.equal(0);
    expect(days("1")).to.equal(1);
    expect(days("3650")).to.equal(3650);
  });

  it("refuses what is not a whole number of days in range, naming the variable", () => {
    for (const bad of ["3651", "-1", "1.5", "thirty"]) {
      expect(() => days(bad), bad).to.throw(/DETECTION_SESSION_RETENTION_DAYS/);
    }
  });
});
