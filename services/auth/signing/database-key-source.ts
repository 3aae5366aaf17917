import type { Logger } from "../../shared/logging/logger.js";
import type { SigningKeysStore } from "../store/signing-keys-store.js";
import { nextChange, scheduleKeys } from "./key-schedule.js";
import type { KeySource, SourcedKey } from "./key-source.js";
import { generateSigningJwk, parsePrivateJwk } from "./signing-key.js";

/**
 * The embedded default: keys are generated here and kept in the auth database (first start
 * generates one). Rotation inserts a new key; keys whose last token has expired are deleted.
 */
export function createDatabaseKeySource(options: {
  store: SigningKeysStore;
  retentionSeconds: number;
  logger: Logger;
}): KeySource {
  const { store, logger } = options;
  const retentionMs = options.retentionSeconds * 1000;

  const insertNew = async (activatesAt: number, now: number): Promise<string> => {
    const jwk = await generateSigningJwk();
    await store.insert({
      _id: jwk.kid,
      alg: jwk.alg,
      private_jwk: { ...jwk },
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
      const keys: SourcedKey[] = states.map((state) => ({
        state,
        jwk: parsePrivateJwk(byKid.get(state.kid)?.private_jwk),
      }));
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
