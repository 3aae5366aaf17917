import { Code, serviceError } from "@movement-detection/shared/errors";
import {
  createIdempotencyStore,
  fingerprintOf,
  type IdempotencyStore,
} from "@movement-detection/shared/idempotency";
import { expect } from "chai";
import { type Db, MongoClient } from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { failure } from "../support/failure.js";

describe("services/shared/idempotency over MongoDB", () => {
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let db: Db;
  // The store reads this fake clock, but the embedded store's TTL monitor deletes expired keys on
  // the wall clock: a fixed past date would let a sweep remove keys mid-test. Start at real now.
  let clock = Date.now();
  let store: IdempotencyStore;
  let counter = 0;
  const request = (body: unknown, key = `key-${counter}`) => ({
    scope: "project-1:CreateThing",
    key,
    fingerprint: fingerprintOf(body),
  });

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri);
    db = client.db("idempotency_test");
    store = createIdempotencyStore(db, { leaseMs: 1000, waitMs: 2000, now: () => clock });
    await store.ensureIndexes();
  });
  after(async () => {
    await client?.close();
    await mongo?.stop();
  });
  beforeEach(() => {
    counter += 1;
  });

  it("runs once and replays the stored response", async () => {
    let runs = 0;
    const execute = async ({ reservedId }: { reservedId: string }) => {
      runs += 1;
      return { id: reservedId, n: runs };
    };
    const first = await store.run(request({ a: 1 }), execute);
    const again = await store.run(request({ a: 1 }), execute);
    expect(first.replayed).to.equal(false);
    expect(again).to.deep.equal({ value: first.value, replayed: true });
    expect(runs).to.equal(1);
  });

  it("refuses the same key with another request", async () => {
    await store.run(request({ a: 1 }), async () => "done");
    const reused = await failure(store.run(request({ a: 2 }), async () => "other"));
    expect(reused).to.include({ code: Code.FailedPrecondition, reason: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("runs concurrent repeats once", async () => {
    let runs = 0;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        store.run(request({ a: 1 }), async ({ reservedId }) => {
          runs += 1;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return reservedId;
        }),
      ),
    );
    expect(runs).to.equal(1);
    expect(new Set(results.map((r) => r.value)).size).to.equal(1);
  });

  it("forgets a key whose request was refused, so a corrected request can use it", async () => {
    const refused = await failure(
      store.run(request({ name: "" }), async () => {
        throw serviceError(Code.InvalidArgument, "FIELD_INVALID", "bad name");
      }),
    );
    expect(refused.reason).to.equal("FIELD_INVALID");
    const fixed = await store.run(request({ name: "ok" }), async () => "created");
    expect(fixed).to.deep.equal({ value: "created", replayed: false });
  });

  it("retries an interrupted request with the same reserved id", async () => {
    const seen: string[] = [];
    await failure(
      store.run(request({ a: 1 }), async ({ reservedId }) => {
        seen.push(reservedId);
        throw serviceError(Code.Unavailable, "DEPENDENCY_UNAVAILABLE", "down");
      }),
    );
    const retried = await store.run(request({ a: 1 }), async ({ reservedId }) => {
      seen.push(reservedId);
      return reservedId;
    });
    expect(seen).to.have.length(2);
    expect(seen[1]).to.equal(seen[0]);
    expect(retried.value).to.equal(seen[0]);
  });

  it("takes over from a first attempt that died, once its lease ran out", async () => {
    let release: () => void = () => undefined;
    const seen: string[] = [];
    const stuck = store.run(request({ a: 1 }), async ({ reservedId }) => {
      seen.push(reservedId);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return "first";
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock += 1500;
    const second = await store.run(request({ a: 1 }), async ({ reservedId }) => {
      seen.push(reservedId);
      return "second";
    });
    expect(second.value).to.equal("second");
    expect(seen[1]).to.equal(seen[0]);
    release();
    await stuck;
  });

  it("answers a repeat that waited too long with a retryable CONCURRENT_MODIFICATION", async () => {
    const quick = createIdempotencyStore(db, { leaseMs: 60_000, waitMs: 100 });
    let release: () => void = () => undefined;
    const slow = quick.run(request({ a: 1 }), async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return "slow";
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = await failure(quick.run(request({ a: 1 }), async () => "fast"));
    expect(busy).to.include({ code: Code.Aborted, reason: "CONCURRENT_MODIFICATION" });
    release();
    expect((await slow).value).to.equal("slow");
  });

  it("forgets keys after the retention window (24 h by default)", async () => {
    await store.run(request({ a: 1 }), async () => "old");
    clock += 24 * 60 * 60 * 1000 + 1;
    const fresh = await store.run(request({ a: 2 }), async () => "new");
    expect(fresh).to.deep.equal({ value: "new", replayed: false });
  });

  it("checks the key: 1 to 255 printable characters", async () => {
    expect((await store.run(request({}, "k".repeat(255)), async () => 1)).value).to.equal(1);
    for (const key of ["", "k".repeat(256), "tab\there", "é"]) {
      const refused = await failure(store.run(request({}, key), async () => 1));
      expect(refused).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
    }
  });

  it("fingerprints JSON whatever the key order", () => {
    expect(fingerprintOf({ a: 1, b: [1, { c: 2, d: 3 }] })).to.equal(
      fingerprintOf({ b: [1, { d: 3, c: 2 }], a: 1 }),
    );
    expect(fingerprintOf({ a: 1 })).to.not.equal(fingerprintOf({ a: "1" }));
    expect(fingerprintOf({ a: 1, b: undefined })).to.equal(fingerprintOf({ a: 1 }));
  });
});
