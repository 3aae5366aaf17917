import { createCipheriv, randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import { createDatabaseKeySource } from "../../services/auth/signing/database-key-source.js";
import {
  generateKeyEncryptionKey,
  type KeyBinding,
  type KeyEncryptionKeys,
  openJwk,
  parseKeyEncryptionKeys,
  SealError,
  sealJwk,
} from "../../services/auth/signing/key-encryption.js";
import {
  judgeRecord,
  publicMembers,
  type RefusalReason,
} from "../../services/auth/signing/key-record.js";
import {
  generateSigningJwk,
  type PrivateSigningJwk,
} from "../../services/auth/signing/signing-key.js";
import type {
  SigningKeyRecord,
  SigningKeysStore,
} from "../../services/auth/store/signing-keys-store.js";

/** The signing_keys collection, in memory: what the key source reads and writes. */
function memoryStore(records: SigningKeyRecord[] = []) {
  const store = {
    records,
    failRemove: false,
    async insert(record: SigningKeyRecord) {
      records.push(structuredClone(record));
    },
    async list() {
      return structuredClone(records);
    },
    async reseal(id: string, sealed: SigningKeyRecord["sealed_private_jwk"]) {
      const record = records.find((r) => r._id === id) as SigningKeyRecord;
      record.sealed_private_jwk = sealed;
    },
    async remove(ids: readonly string[]) {
      if (store.failRemove) throw new Error("store down");
      for (const id of ids) {
        const at = records.findIndex((r) => r._id === id);
        if (at >= 0) records.splice(at, 1);
      }
    },
  };
  return store as typeof store & SigningKeysStore;
}

/** A logger whose lines the test reads (level and message and fields). */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino(
    { level: "info", formatters: { level: (label) => ({ level: label }) } },
    stream,
  );
  return { logger, lines, at: (level: string) => lines.filter((line) => line.level === level) };
}

/** A record exactly as the auth service writes one. */
async function sealedRecord(keys: KeyEncryptionKeys, activatesAt = 0) {
  const jwk = await generateSigningJwk();
  const binding: KeyBinding = {
    kid: jwk.kid,
    alg: jwk.alg,
    publicKey: publicMembers(jwk),
    createdAt: activatesAt,
    activatesAt,
  };
  const record: SigningKeyRecord = {
    _id: jwk.kid,
    alg: jwk.alg,
    public_jwk: { ...binding.publicKey },
    sealed_private_jwk: sealJwk(keys, binding, jwk),
    created_at: new Date(activatesAt),
    activates_at: new Date(activatesAt),
  };
  return { jwk, binding, record };
}

/** A record as the version before this one sealed it: the kid alone as additional data. */
function legacySealed(keys: KeyEncryptionKeys, jwk: PrivateSigningJwk): SigningKeyRecord {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.byId.get(keys.currentId) as Buffer, iv);
  cipher.setAAD(Buffer.from(`movement-detection signing key ${jwk.kid}`, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), "utf8"), cipher.final()]);
  return {
    _id: jwk.kid,
    alg: jwk.alg,
    sealed_private_jwk: {
      kek_id: keys.currentId,
      alg: "A256GCM",
      iv: iv.toString("base64url"),
      ciphertext: ciphertext.toString("base64url"),
      tag: cipher.getAuthTag().toString("base64url"),
    },
    created_at: new Date(0),
    activates_at: new Date(0),
  };
}

const kek = parseKeyEncryptionKeys(generateKeyEncryptionKey("a"));

describe("signing keys sealed under a key-encryption key (AES-256-GCM, everything bound in)", () => {
  it("seals and opens; a wrong or unknown KEK, a flipped byte or a short tag does not open", async () => {
    const { jwk, binding, record } = await sealedRecord(kek);
    const sealed = record.sealed_private_jwk as NonNullable<typeof record.sealed_private_jwk>;
    expect(JSON.stringify(sealed)).to.not.include(jwk.d as string);
    expect(openJwk(kek, binding, sealed)).to.deep.equal(jwk);
    const problem = (open: () => unknown) => {
      try {
        open();
      } catch (error) {
        return (error as SealError).problem;
      }
      return "opened";
    };
    const flipped = Buffer.from(sealed.ciphertext, "base64url");
    flipped[0] ^= 1;
    const changed = { ...sealed, ciphertext: flipped.toString("base64url") };
    expect(problem(() => openJwk(kek, binding, changed))).to.equal("not_authentic");
    // GCM accepts a 4-byte tag, which a forger could find by trying: only 16 bytes open.
    const short = {
      ...sealed,
      tag: Buffer.from(sealed.tag, "base64url").subarray(0, 4).toString("base64url"),
    };
    expect(problem(() => openJwk(kek, binding, short))).to.equal("not_authentic");
    const other = parseKeyEncryptionKeys(generateKeyEncryptionKey("a"));
    expect(problem(() => openJwk(other, binding, sealed))).to.equal("not_authentic");
    const unknown = parseKeyEncryptionKeys(generateKeyEncryptionKey("b"));
    expect(problem(() => openJwk(unknown, binding, sealed))).to.equal("unknown_kek");
  });

  it("binds the kid, the algorithm, the public key and both times: changing any one does not open", async () => {
    const { binding, record } = await sealedRecord(kek, 1_000_000);
    const sealed = record.sealed_private_jwk as NonNullable<typeof record.sealed_private_jwk>;
    const other = await generateSigningJwk();
    const changes: Record<string, KeyBinding> = {
      kid: { ...binding, kid: other.kid },
      alg: { ...binding, alg: "ES256" },
      "public key": { ...binding, publicKey: publicMembers(other) },
      "public key with a member added": {
        ...binding,
        publicKey: { ...binding.publicKey, use: "sig" },
      },
      "created at": { ...binding, createdAt: binding.createdAt - 1 },
      "activates at": { ...binding, activatesAt: binding.activatesAt - 1 },
    };
    for (const [name, changed] of Object.entries(changes)) {
      expect(() => openJwk(kek, changed, sealed), name).to.throw(
        SealError,
        /altered, copied or forged/,
      );
    }
    expect(() => openJwk(kek, binding, sealed)).to.not.throw();
  });
});

describe("judgeRecord: a record read from the store is trusted only as the service wrote it", () => {
  const cases: [
    string,
    (record: SigningKeyRecord, jwk: PrivateSigningJwk) => SigningKeyRecord,
    RefusalReason,
  ][] = [
    [
      "a plaintext private key",
      (r, jwk) => ({ ...r, sealed_private_jwk: undefined, private_jwk: jwk }),
      "plaintext",
    ],
    ["a plaintext key beside a good seal", (r, jwk) => ({ ...r, private_jwk: jwk }), "plaintext"],
    ["no key material", (r) => ({ ...r, sealed_private_jwk: undefined }), "malformed"],
    [
      "a sealed key that is a string",
      (r) => ({ ...r, sealed_private_jwk: "x" as never }),
      "malformed",
    ],
    ["no public key", (r) => ({ ...r, public_jwk: undefined }), "malformed"],
    [
      "a time that is a string",
      (r) => ({ ...r, activates_at: "2030-01-01" as never }),
      "malformed",
    ],
    ["an algorithm outside the allow-list", (r) => ({ ...r, alg: "HS256" }), "malformed"],
    ["an id that is not a string", (r) => ({ ...r, _id: 7 as never }), "malformed"],
    [
      "the kid-only seal of the version before",
      (r) => ({ ...r, sealed_private_jwk: { ...r.sealed_private_jwk, v: undefined } as never }),
      "legacy_sealed",
    ],
    [
      "a format of a newer version",
      (r) => ({ ...r, sealed_private_jwk: { ...r.sealed_private_jwk, v: 3 } as never }),
      "unknown_format",
    ],
    [
      "a KEK id not configured",
      (r) => ({ ...r, sealed_private_jwk: { ...r.sealed_private_jwk, kek_id: "zz" } as never }),
      "unknown_kek",
    ],
    ["copied under another kid", (r) => ({ ...r, _id: "made-up" }), "not_authentic"],
    [
      "activation moved into the past",
      (r) => ({ ...r, activates_at: new Date(-1) }),
      "not_authentic",
    ],
    [
      "activation moved by one millisecond",
      (r) => ({ ...r, activates_at: new Date(1) }),
      "not_authentic",
    ],
    [
      "another public key",
      (r) => ({ ...r, public_jwk: { ...r.public_jwk, x: "A".repeat(43) } }),
      "not_authentic",
    ],
  ];

  for (const [name, change, reason] of cases) {
    it(`refuses ${name}: ${reason}`, async () => {
      const { jwk, record } = await sealedRecord(kek);
      expect(judgeRecord(record, kek).trusted, "the record as written").to.equal(true);
      const judged = judgeRecord(change(record, jwk), kek);
      expect(judged).to.include({ trusted: false, reason });
      expect(JSON.stringify(judged)).to.not.include(jwk.d as string);
    });
  }

  it("trusts the record the service wrote, and returns its key", async () => {
    const { jwk, record } = await sealedRecord(kek);
    expect(judgeRecord(structuredClone(record), kek)).to.deep.include({ trusted: true, jwk });
  });
});

describe("database key source: refusals, the upgrade, KEK rotation", () => {
  const source = (
    store: SigningKeysStore,
    keys: KeyEncryptionKeys,
    logger: ReturnType<typeof recordingLogger>["logger"],
    refused: RefusalReason[] = [],
  ) =>
    createDatabaseKeySource({
      store,
      retentionSeconds: 3600,
      keyEncryption: keys,
      logger,
      onRefused: (reason) => refused.push(reason),
    });

  it("upgrade: kid-only records are retired (warn, never used), a plaintext one alarmed, a fresh key signs", async () => {
    const old = await generateSigningJwk();
    const planted = await generateSigningJwk();
    const store = memoryStore([
      legacySealed(kek, old),
      { ...legacySealed(kek, planted), sealed_private_jwk: undefined, private_jwk: planted },
    ]);
    const log = recordingLogger();
    const refused: RefusalReason[] = [];
    const first = await source(store, kek, log.logger, refused).load(Date.now());
    expect(first.keys).to.have.length(1);
    const fresh = first.keys[0].jwk.kid;
    expect([old.kid, planted.kid]).to.not.include(fresh);
    expect(first.keys[0].state.signing).to.equal(true);
    expect(refused).to.deep.equal(["plaintext"]);
    expect(log.at("error").map((line) => line.kid)).to.deep.equal([planted.kid]);
    expect(log.at("warn").map((line) => [line.kid, line.reason])).to.deep.equal([
      [old.kid, "legacy_sealed"],
    ]);
    expect(store.records.map((r) => r._id)).to.deep.equal([fresh]);

    // Once: the next load has nothing to migrate; a kid-only record appearing now is alarmed.
    store.records.push(legacySealed(kek, old));
    const again = await source(store, kek, log.logger, refused).load(Date.now());
    expect(again.keys.map((k) => k.jwk.kid)).to.deep.equal([fresh]);
    expect(refused).to.deep.equal(["plaintext", "legacy_sealed"]);
    expect(store.records.map((r) => r._id)).to.deep.equal([fresh]);
  });

  it("a record under a KEK not configured is kept (the operator can supply it), alarmed once per process", async () => {
    const other = parseKeyEncryptionKeys(generateKeyEncryptionKey("gone"));
    const { record } = await sealedRecord(other);
    const store = memoryStore([record]);
    const log = recordingLogger();
    const refused: RefusalReason[] = [];
    const keys = source(store, kek, log.logger, refused);
    const first = await keys.load(Date.now());
    await keys.load(Date.now());
    expect(refused).to.deep.equal(["unknown_kek"]);
    expect(log.at("error")).to.have.length(1);
    expect(log.at("error")[0].msg).to.match(/"gone", which KEY_ENCRYPTION_KEYS does not hold/);
    expect(first.keys.map((k) => k.jwk.kid)).to.not.include(record._id);
    expect(store.records.map((r) => r._id)).to.include(record._id);
    // With that KEK back (second in the list), the record is trusted and re-sealed under the first.
    const both = parseKeyEncryptionKeys(
      `${generateKeyEncryptionKey("a2")},gone:${(other.byId.get("gone") as Buffer).toString("base64url")}`,
    );
    const restored = await source(store, both, log.logger).load(Date.now());
    expect(restored.keys.map((k) => k.jwk.kid)).to.include(record._id);
    expect(store.records.find((r) => r._id === record._id)?.sealed_private_jwk?.kek_id).to.equal(
      "a2",
    );
  });

  it("a refused record that cannot be deleted stays refused; the load goes on", async () => {
    const { record: own } = await sealedRecord(kek);
    const planted = await generateSigningJwk();
    const store = memoryStore([own, { ...own, _id: planted.kid, private_jwk: planted }]);
    store.failRemove = true;
    const log = recordingLogger();
    const loaded = await source(store, kek, log.logger).load(Date.now());
    expect(loaded.keys.map((k) => k.jwk.kid)).to.deep.equal([own._id]);
    expect(log.at("warn").map((line) => line.msg)).to.deep.equal([
      "refused signing key records not deleted",
    ]);
  });

  it("generates sealed keys and re-seals them on KEK rotation", async () => {
    const old = generateKeyEncryptionKey("old");
    const next = generateKeyEncryptionKey("new");
    const store = memoryStore();
    const log = recordingLogger();
    const at = (keks: string) => source(store, parseKeyEncryptionKeys(keks), log.logger);
    await at(old).load(Date.now());
    const kid = await at(old).rotate?.(Date.now(), 0);
    expect(store.records.find((r) => r._id === kid)?.sealed_private_jwk?.kek_id).to.equal("old");

    // Rotation of the KEK: the new one first, the old one kept to open what it sealed.
    const rotated = await at(`${next},${old}`).load(Date.now());
    expect(rotated.keys).to.have.length(2);
    expect(store.records.map((r) => r.sealed_private_jwk?.kek_id)).to.deep.equal(["new", "new"]);
    // The old KEK can now go; both keys still open.
    expect((await at(next).load(Date.now())).keys).to.have.length(2);
    expect(log.at("error")).to.deep.equal([]);
  });
});
