import { expect } from "chai";
import { createDatabaseKeySource } from "../../services/auth/signing/database-key-source.js";
import {
  generateKeyEncryptionKey,
  openJwk,
  parseKeyEncryptionKeys,
  sealJwk,
} from "../../services/auth/signing/key-encryption.js";
import { generateSigningJwk } from "../../services/auth/signing/signing-key.js";
import type {
  SigningKeyRecord,
  SigningKeysStore,
} from "../../services/auth/store/signing-keys-store.js";
import { createLogger } from "../../services/shared/logging/logger.js";

/** The signing_keys collection, in memory: what the key source reads and writes. */
function memoryStore(records: SigningKeyRecord[] = []) {
  const store = {
    records,
    async insert(record: SigningKeyRecord) {
      records.push(structuredClone(record));
    },
    async list() {
      return structuredClone(records);
    },
    async reseal(id: string, sealed: SigningKeyRecord["sealed_private_jwk"]) {
      const record = records.find((r) => r._id === id) as SigningKeyRecord;
      record.sealed_private_jwk = sealed;
      delete record.private_jwk;
    },
    async remove(ids: readonly string[]) {
      for (const id of ids)
        records.splice(
          records.findIndex((r) => r._id === id),
          1,
        );
    },
  };
  return store as typeof store & SigningKeysStore;
}

const logger = createLogger({ service: "test", level: "silent" });

describe("signing keys sealed under a key-encryption key (AES-256-GCM)", () => {
  it("seals and opens; the kid is bound in, tampering and a wrong KEK fail", async () => {
    const keys = parseKeyEncryptionKeys(generateKeyEncryptionKey("a"));
    const jwk = await generateSigningJwk();
    const sealed = sealJwk(keys, jwk.kid, jwk);
    expect(JSON.stringify(sealed)).to.not.include(jwk.d as string);
    expect(openJwk(keys, jwk.kid, sealed)).to.deep.equal(jwk);
    expect(() => openJwk(keys, "another-kid", sealed)).to.throw(/does not open/);
    const flipped = Buffer.from(sealed.ciphertext, "base64url");
    flipped[0] ^= 1;
    expect(() =>
      openJwk(keys, jwk.kid, { ...sealed, ciphertext: flipped.toString("base64url") }),
    ).to.throw(/does not open/);
    const other = parseKeyEncryptionKeys(generateKeyEncryptionKey("a"));
    expect(() => openJwk(other, jwk.kid, sealed)).to.throw(/does not open/);
    const unknown = parseKeyEncryptionKeys(generateKeyEncryptionKey("b"));
    expect(() => openJwk(unknown, jwk.kid, sealed)).to.throw(/does not hold/);
  });

  it("generates keys sealed, seals a plaintext record left by an older version, re-seals on KEK rotation", async () => {
    const old = generateKeyEncryptionKey("old");
    const next = generateKeyEncryptionKey("new");
    const legacy = await generateSigningJwk();
    const store = memoryStore([
      {
        _id: legacy.kid,
        alg: legacy.alg,
        private_jwk: { ...legacy },
        created_at: new Date(0),
        activates_at: new Date(0),
      },
    ]);
    const source = (keks: string) =>
      createDatabaseKeySource({
        store,
        retentionSeconds: 3600,
        keyEncryption: parseKeyEncryptionKeys(keks),
        logger,
      });
    const first = await source(old).load(Date.now());
    expect(first.keys.map((k) => k.jwk)).to.deep.equal([legacy]);
    expect(store.records[0].private_jwk).to.equal(undefined);
    expect(store.records[0].sealed_private_jwk?.kek_id).to.equal("old");

    const kid = await source(old).rotate?.(Date.now(), 0);
    expect(store.records.find((r) => r._id === kid)?.sealed_private_jwk?.kek_id).to.equal("old");

    // Rotation of the KEK: the new one first, the old one kept to open what it sealed.
    const rotated = await source(`${next},${old}`).load(Date.now());
    expect(rotated.keys).to.have.length(2);
    expect(store.records.map((r) => r.sealed_private_jwk?.kek_id)).to.deep.equal(["new", "new"]);
    // The old KEK can now go; a KEK that never sealed them opens nothing.
    expect((await source(next).load(Date.now())).keys).to.have.length(2);
    let refused = "";
    await source(old)
      .load(Date.now())
      .catch((error: Error) => (refused = error.message));
    expect(refused).to.match(/sealed under key-encryption key "new"/);
  });
});
