import type { Logger } from "@movement-detection/shared/logging";
import type { SigningKeyRecord, SigningKeysStore } from "../store/signing-keys-store.js";
import { type KeyBinding, type KeyEncryptionKeys, sealJwk } from "./key-encryption.js";
import { judgeRecord, publicMembers, type RefusalReason } from "./key-record.js";
import { nextChange, scheduleKeys } from "./key-schedule.js";
import type { KeySource, SourcedKey } from "./key-source.js";
import { generateSigningJwk, type PrivateSigningJwk } from "./signing-key.js";

/** A refused record the service may delete: evidence stays in the log, never a key in the store. */
const REMOVED: ReadonlySet<RefusalReason> = new Set([
  "plaintext",
  "legacy_sealed",
  "malformed",
  "not_authentic",
]);

/**
 * The embedded default: keys are generated here and kept in the auth database (first start
 * generates one), each private key sealed under the configured key-encryption key with its kid,
 * algorithm, public key and times bound in (key-encryption.ts). A record is used only when it
 * opens that way (key-record.ts): one the service did not write is never published and never
 * signs; it is alarmed (a log line at error, `onRefused` for the metric) and deleted, except one
 * sealed under a KEK id or in a format this version does not hold, which is kept for the operator
 * (and alarmed once per process). With no key left, a fresh one is generated.
 *
 * Upgrade from a version that sealed with the kid only: those records cannot be told from a
 * plaintext key an attacker planted and that version sealed, so none is trusted. At the first
 * start (no record in the current form yet) they are retired, logged at warn, and a fresh key
 * signs: tokens they signed are refused, clients exchange their credentials again. After that,
 * one appearing again is alarmed like any other. Plaintext records are alarmed always.
 *
 * Records sealed under an older KEK are re-sealed under the current one as they are loaded.
 */
export function createDatabaseKeySource(options: {
  store: SigningKeysStore;
  retentionSeconds: number;
  keyEncryption: KeyEncryptionKeys;
  logger: Logger;
  onRefused?: (reason: RefusalReason) => void;
}): KeySource {
  const { store, logger, keyEncryption } = options;
  const retentionMs = options.retentionSeconds * 1000;
  /** Kept records already alarmed by this process (kid and reason): once each, not per reload. */
  const alarmed = new Set<string>();

  const insertNew = async (activatesAt: number, now: number): Promise<Trusted> => {
    const jwk = await generateSigningJwk();
    const binding: KeyBinding = {
      kid: jwk.kid,
      alg: jwk.alg,
      publicKey: publicMembers(jwk),
      createdAt: now,
      activatesAt,
    };
    await store.insert({
      _id: jwk.kid,
      alg: jwk.alg,
      public_jwk: { ...binding.publicKey },
      sealed_private_jwk: sealJwk(keyEncryption, binding, jwk),
      created_at: new Date(now),
      activates_at: new Date(activatesAt),
    });
    logger.info(
      { kid: jwk.kid, activates_at: new Date(activatesAt).toISOString() },
      "signing key created",
    );
    return { jwk, binding };
  };

  /** Alarms and (mostly) deletes what is refused; returns the records the service trusts. */
  const judgeAll = async (records: readonly SigningKeyRecord[]): Promise<Trusted[]> => {
    const judged = records.map((record) => ({
      record,
      judgement: judgeRecord(record, keyEncryption),
    }));
    const trusted: Trusted[] = [];
    for (const { judgement } of judged) if (judgement.trusted) trusted.push(judgement);
    const upgrading = trusted.length === 0;
    const removed: SigningKeyRecord["_id"][] = [];
    for (const { record, judgement } of judged) {
      if (judgement.trusted) continue;
      const kid = describeId(record._id);
      const remove = REMOVED.has(judgement.reason);
      if (remove) removed.push(record._id);
      if (upgrading && judgement.reason === "legacy_sealed") {
        logger.warn(
          { kid, reason: judgement.reason },
          "signing key of an older version retired at upgrade: not trusted (docs/security.md, signing keys in the store)",
        );
        continue;
      }
      const once = `${kid}\u0000${judgement.reason}`;
      if (!remove && alarmed.has(once)) continue;
      if (!remove) alarmed.add(once);
      options.onRefused?.(judgement.reason);
      logger.error(
        { kid, reason: judgement.reason, removed: remove },
        `signing key refused: the record ${judgement.message}; it is never published nor used, ${remove ? "and was deleted (someone who can write to the store made or changed it?)" : "and is kept: supply its key-encryption key, or remove it"}`,
      );
    }
    if (removed.length > 0) {
      // The refusal stands whether or not the delete succeeds: a failure only means the alarm
      // repeats at the next load.
      await store.remove(removed).catch((error: Error) => {
        logger.warn({ err: error.message }, "refused signing key records not deleted");
      });
    }
    return trusted;
  };

  /** Seals a trusted record again under the current KEK, when an older one sealed it. */
  const resealIfOld = async (record: SigningKeyRecord, key: Trusted): Promise<void> => {
    if (record.sealed_private_jwk?.kek_id === keyEncryption.currentId) return;
    await store.reseal(key.binding.kid, sealJwk(keyEncryption, key.binding, key.jwk));
    logger.info(
      { kid: key.binding.kid, kek_id: keyEncryption.currentId },
      "signing keys re-sealed",
    );
  };

  return {
    kind: "database",
    async load(now) {
      const records = await store.list();
      const trusted = await judgeAll(records);
      const byKid = new Map(records.map((record) => [record._id, record]));
      for (const key of trusted) {
        await resealIfOld(byKid.get(key.binding.kid) as SigningKeyRecord, key);
      }
      if (trusted.length === 0) trusted.push(await insertNew(now, now));
      const states = scheduleKeys(
        trusted.map(({ binding }) => ({
          kid: binding.kid,
          createdAt: binding.createdAt,
          activatesAt: binding.activatesAt,
        })),
        now,
        retentionMs,
      );
      const jwkOf = new Map(trusted.map((key) => [key.binding.kid, key.jwk]));
      const keys: SourcedKey[] = states.map((state) => ({
        state,
        jwk: jwkOf.get(state.kid) as PrivateSigningJwk,
      }));
      return { keys, nextChangeAt: nextChange(states, now) };
    },
    async rotate(now, delaySeconds) {
      const { binding } = await insertNew(now + delaySeconds * 1000, now);
      const expired = (await this.load(now)).keys.filter((key) => !key.state.published);
      await store.remove(expired.map((key) => key.state.kid));
      return binding.kid;
    },
  };
}

interface Trusted {
  readonly jwk: PrivateSigningJwk;
  readonly binding: KeyBinding;
}

/** A record's id for a log line: the store lets a writer put anything there, of any length. */
function describeId(id: unknown): string {
  return (typeof id === "string" ? id : String(id)).slice(0, 100);
}
