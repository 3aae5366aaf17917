import type { Logger } from "../../shared/logging/logger.js";
import type { SigningKeyRecord, SigningKeysStore } from "../store/signing-keys-store.js";
import { type KeyEncryptionKeys, openJwk, sealJwk } from "./key-encryption.js";
import { nextChange, scheduleKeys } from "./key-schedule.js";
import type { KeySource, SourcedKey } from "./key-source.js";
import { generateSigningJwk, parsePrivateJwk } from "./signing-key.js";

/**
 * The embedded default: keys are generated here and kept in the auth database (first start
 * generates one), each private key sealed under the configured key-encryption key
 * (key-encryption.ts): the database alone holds nothing that signs. Rotation inserts a new key;
 * keys whose last token has expired are deleted. Records sealed under an older KEK, or stored in
 * plaintext before sealing existed, are re-sealed under the current KEK as they are loaded.
 */
export function createDatabaseKeySource(options: {
  store: SigningKeysStore;
  retentionSeconds: number;
  keyEncryption: KeyEncryptionKeys;
  logger: Logger;
}): KeySource {
  const { store, logger, keyEncryption } = options;

  /** The record's private JWK, re-sealed under the current KEK first if it needs it. */
  const unseal = async (record: SigningKeyRecord): Promise<unknown> => {
    const jwk = record.sealed_private_jwk
      ? openJwkOf(record)
      : (record.private_jwk ?? failMissing(record._id));
    if (record.sealed_private_jwk?.kek_id !== keyEncryption.currentId) {
      await store.reseal(record._id, sealJwk(keyEncryption, record._id, jwk as object));
      logger.info(
        { kid: record._id, kek_id: keyEncryption.currentId },
        record.private_jwk ? "signing key sealed (was plaintext)" : "signing keys re-sealed",
      );
    }
    return jwk;
  };
  const openJwkOf = (record: SigningKeyRecord) => {
    try {
      return openJwk(keyEncryption, record._id, record.sealed_private_jwk as never);
    } catch (error) {
      throw new Error(`signing key ${record._id} ${(error as Error).message}`);
    }
  };
  const retentionMs = options.retentionSeconds * 1000;

  const insertNew = async (activatesAt: number, now: number): Promise<string> => {
    const jwk = await generateSigningJwk();
    await store.insert({
      _id: jwk.kid,
      alg: jwk.alg,
      sealed_private_jwk: sealJwk(keyEncryption, jwk.kid, jwk),
      created_at: new Date(now),
      activates_at: new Date(activatesAt),
    });
    logger.info(
      { kid: jwk.kid, activates_at: new Date(activatesAt).toISOString() },
      "signing key created",
    );
    return jwk.kid;
  };

  return {
    kind: "database",
    async load(now) {
      let records = await store.list();
      if (records.length === 0) {
        await insertNew(now, now);
        records = await store.list();
      }
      const states = scheduleKeys(
        records.map((record) => ({
          kid: record._id,
          createdAt: record.created_at.getTime(),
          activatesAt: record.activates_at.getTime(),
        })),
        now,
        retentionMs,
      );
      const byKid = new Map(records.map((record) => [record._id, record]));
      const keys: SourcedKey[] = [];
      for (const state of states) {
        const record = byKid.get(state.kid) as SigningKeyRecord;
        keys.push({ state, jwk: parsePrivateJwk(await unseal(record)) });
      }
      return { keys, nextChangeAt: nextChange(states, now) };
    },
    async rotate(now, delaySeconds) {
      const kid = await insertNew(now + delaySeconds * 1000, now);
      const expired = (await this.load(now)).keys.filter((key) => !key.state.published);
      await store.remove(expired.map((key) => key.state.kid));
      return kid;
    },
  };
}

function failMissing(kid: string): never {
  throw new Error(`signing key ${kid} has no key material`);
}
