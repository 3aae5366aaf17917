import { DEFAULT_TOKEN_SETTINGS } from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { hashSecret } from "../../services/auth/domain/secrets.js";
import { createFailureLimiter } from "../../services/auth/operations/failure-limiter.js";
import { createRecentCredentials } from "../../services/auth/operations/recent-credentials.js";
import { createTokenExchange } from "../../services/auth/operations/token-exchange.js";
import type { TokenSigner } from "../../services/auth/signing/token-signer.js";
import type { CredentialRecord } from "../../services/auth/store/credentials-store.js";
import type { ProjectsStore } from "../../services/auth/store/projects-store.js";

const PEPPER = "p".repeat(32);
const KEY_ID = "0195a2b4-7c1d-7000-8000-000000000001";
const SECRET = `msk_${"s".repeat(43)}`;
const WRONG = `msk_${"w".repeat(43)}`;

const apiKey = (revoked = false): CredentialRecord => ({
  _id: KEY_ID,
  type: "api_key",
  organization_id: "o",
  project_id: "0195a2b4-7c1d-7000-8000-0000000000aa",
  name: "k",
  scopes: [],
  secret_hint: SECRET.slice(0, 8),
  secret_hash: hashSecret(PEPPER, SECRET),
  created_at: new Date(0),
  ...(revoked ? { revoked_at: new Date(1) } : {}),
});

/** A credentials store that logs its reads; `hold` makes the next read wait for `release`. */
function fakeStore(records: CredentialRecord[]) {
  const byId = new Map(records.map((record) => [record._id, record]));
  const reads: string[] = [];
  let held: Promise<void> | undefined;
  let release = () => {};
  const answer = async (record: CredentialRecord | null) => {
    if (held) {
      const waiting = held;
      held = undefined;
      await waiting;
    }
    return record;
  };
  return {
    reads,
    set: (record: CredentialRecord) => byId.set(record._id, record),
    hold() {
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    find(id: string) {
      reads.push(`find ${id}`);
      return answer(byId.get(id) ?? null);
    },
    findByHash(hash: string, type: CredentialRecord["type"]) {
      reads.push(`findByHash ${type} ${hash.slice(0, 8)}`);
      const found = [...byId.values()].find((r) => r.secret_hash === hash && r.type === type);
      return answer(found ?? null);
    },
  };
}

describe("auth: the token paths' recent credentials", () => {
  let now = 1_000_000;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  /** The exchange over a recent-credentials view of `store`; answers "minted" or the error. */
  function exchangeOver(store: ReturnType<typeof fakeStore>, ttlMs = 1000) {
    const recent = createRecentCredentials({ store, ttlMs, clock });
    const exchange = createTokenExchange({
      credentials: recent,
      projects: {
        find: async (id: string) => ({ _id: id, organization_id: "o" }),
      } as unknown as ProjectsStore,
      pepper: PEPPER,
      signer: { signAccessToken: async () => ({ token: "t" }) } as unknown as TokenSigner,
      settings: DEFAULT_TOKEN_SETTINGS,
      limiter: createFailureLimiter({ points: 1000, windowSeconds: 60, blockSeconds: 60 }),
    });
    const mint = (body: Record<string, string>) =>
      exchange.mint({ ...body, clientAddress: "a" }).then(
        () => "minted",
        (error: Error) => error.message,
      );
    return { recent, mint };
  }

  it("an exchange with the right secret reads its credential once per ttlMs", async () => {
    const store = fakeStore([apiKey()]);
    const { mint } = exchangeOver(store);
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    now += 999;
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    expect(await mint({ api_key_id: KEY_ID, api_key_secret: SECRET })).to.equal("minted");
    expect(store.reads).to.have.length(1);
    now += 1;
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    expect(store.reads).to.have.length(2);
  });

  it("a wrong secret goes to the store every time, whether the right one was read just before or not", async () => {
    const store = fakeStore([apiKey()]);
    const { mint } = exchangeOver(store, 60_000);
    const invalid = "[unauthenticated] the credential is not valid";
    expect(await mint({ api_key_id: KEY_ID, api_key_secret: WRONG })).to.equal(invalid);
    const cold = [...store.reads];
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    store.reads.length = 0;
    expect(await mint({ api_key_id: KEY_ID, api_key_secret: WRONG })).to.equal(invalid);
    expect(store.reads, "the same store call as with nothing held").to.deep.equal(cold);
    // A held credential is still matched against the presented id.
    const otherId = "0195a2b4-7c1d-7000-8000-0000000000ff";
    expect(await mint({ api_key_id: otherId, api_key_secret: SECRET })).to.equal(invalid);
  });

  it("keeps no absence: a key created after a miss exchanges at once", async () => {
    const store = fakeStore([]);
    const { mint, recent } = exchangeOver(store, 60_000);
    expect(await mint({ api_key: SECRET })).to.match(/not valid/);
    store.set(apiKey());
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    expect(recent.size).to.equal(1);
  });

  it("a revocation on this replica is refused at once by the exchange and by the id view", async () => {
    const store = fakeStore([apiKey()]);
    const { mint, recent } = exchangeOver(store, 60_000);
    expect(await mint({ api_key: SECRET })).to.equal("minted");
    expect((await recent.find(KEY_ID))?.revoked_at).to.equal(undefined);
    store.set(apiKey(true));
    recent.forget(KEY_ID, apiKey(true));
    expect(await mint({ api_key: SECRET })).to.match(/not valid/);
    expect((await recent.find(KEY_ID))?.revoked_at).to.be.instanceOf(Date);
  });

  it("an exchange's read under way during a revocation does not put the old record back", async () => {
    const store = fakeStore([apiKey()]);
    const { mint, recent } = exchangeOver(store, 60_000);
    store.hold();
    const before = mint({ api_key: SECRET });
    // The exchange reads after its admission (a promise or two later).
    for (let turns = 0; store.reads.length === 0 && turns < 100; turns++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(store.reads).to.have.length(1);
    store.set(apiKey(true));
    recent.forget(KEY_ID, apiKey(true));
    store.release();
    expect(await before, "read before the revocation").to.equal("minted");
    expect(await mint({ api_key: SECRET })).to.match(/not valid/);
    expect(store.reads).to.have.length(2);
  });

  it("with ttlMs 0, every exchange reads its credential", async () => {
    const store = fakeStore([apiKey()]);
    const { mint, recent } = exchangeOver(store, 0);
    await mint({ api_key: SECRET });
    await mint({ api_key: SECRET });
    expect(store.reads).to.have.length(2);
    expect(recent.size).to.equal(0);
  });
});
