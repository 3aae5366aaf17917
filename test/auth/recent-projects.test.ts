import { expect } from "chai";
import { createRecentProjects } from "../../services/auth/operations/recent-projects.js";
import type { ProjectRecord } from "../../services/auth/store/projects-store.js";

const project = (id: string, archived = false): ProjectRecord => ({
  _id: id,
  organization_id: "org",
  name: id,
  slug: id,
  created_at: new Date(0),
  ...(archived ? { archived_at: new Date(1) } : {}),
});

/** A store of projects that counts its reads; `hold` makes the next read wait for `release`. */
function fakeStore(records: ProjectRecord[]) {
  const byId = new Map(records.map((record) => [record._id, record]));
  let held: Promise<void> | undefined;
  let release = () => {};
  const store = {
    reads: 0,
    set: (record: ProjectRecord) => byId.set(record._id, record),
    hold() {
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    async find(id: string): Promise<ProjectRecord | null> {
      store.reads += 1;
      const record = byId.get(id) ?? null;
      if (held) {
        const waiting = held;
        held = undefined;
        await waiting;
      }
      return record;
    },
  };
  return store;
}

describe("auth: the token paths' recent projects", () => {
  let now = 1_000_000;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it("answers a project read less than ttlMs ago without the store, and reads it again at ttlMs", async () => {
    const store = fakeStore([project("a")]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 1000, clock });
    expect((await recent.find("a"))?._id).to.equal("a");
    now += 999;
    expect((await recent.find("a"))?._id).to.equal("a");
    expect(store.reads).to.equal(1);
    now += 1;
    store.set(project("a", true));
    expect((await recent.find("a"))?.archived_at).to.be.instanceOf(Date);
    expect(store.reads).to.equal(2);
  });

  it("after forget, the next read goes to the store (an archive on this replica is seen at once)", async () => {
    const store = fakeStore([project("a")]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 60_000, clock });
    await recent.find("a");
    store.set(project("a", true));
    recent.forget("a");
    expect((await recent.find("a"))?.archived_at).to.be.instanceOf(Date);
    expect(store.reads).to.equal(2);
  });

  it("a read that was under way when the project was forgotten does not put the old record back", async () => {
    const store = fakeStore([project("a")]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 60_000, clock });
    store.hold();
    const stale = recent.find("a");
    store.set(project("a", true));
    recent.forget("a");
    store.release();
    expect((await stale)?.archived_at).to.equal(undefined);
    expect((await recent.find("a"))?.archived_at).to.be.instanceOf(Date);
    expect(store.reads).to.equal(2);
  });

  it("keeps no absence: a project created after a miss is found at once", async () => {
    const store = fakeStore([]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 60_000, clock });
    expect(await recent.find("b")).to.equal(null);
    store.set(project("b"));
    expect((await recent.find("b"))?._id).to.equal("b");
    expect(recent.size).to.equal(1);
  });

  it("with ttlMs 0, every read goes to the store and nothing is held", async () => {
    const store = fakeStore([project("a")]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 0, clock });
    await recent.find("a");
    await recent.find("a");
    expect(store.reads).to.equal(2);
    expect(recent.size).to.equal(0);
  });

  it("a clock that stepped back makes the record stale, not fresh for ever", async () => {
    const store = fakeStore([project("a")]);
    const recent = createRecentProjects({ find: store.find, ttlMs: 1000, clock });
    await recent.find("a");
    now -= 5000;
    await recent.find("a");
    expect(store.reads).to.equal(2);
  });

  it("holds at most maxEntries projects, dropping the least recently read", async () => {
    const store = fakeStore(["a", "b", "c", "d"].map((id) => project(id)));
    const recent = createRecentProjects({ find: store.find, ttlMs: 60_000, clock, maxEntries: 3 });
    for (const id of ["a", "b", "c"]) await recent.find(id);
    expect(recent.size).to.equal(3);
    await recent.find("a"); // now the most recent; "b" is the least recently read
    expect(store.reads).to.equal(3);
    await recent.find("d");
    expect(recent.size).to.equal(3);
    await recent.find("a");
    await recent.find("c");
    expect(store.reads, "a and c still held").to.equal(4);
    await recent.find("b");
    expect(store.reads, "b was dropped").to.equal(5);
  });
});
