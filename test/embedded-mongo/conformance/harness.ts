/**
 * Shared set-up for the conformance suite: one server per test file (the embedded one,
 * or the real MongoDB named by MONGODB_URI), a uniquely named database dropped at the end.
 */
import { type Db, MongoClient } from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../support/embedded-mongo.js";

export interface ConformanceState {
  mongo: EmbeddedMongoHandle;
  client: MongoClient;
  db: Db;
}

export const againstRealMongo = Boolean(process.env.MONGODB_URI);

export function useConformanceDb(name: string): ConformanceState {
  const state = {} as ConformanceState;
  before(async function () {
    this.timeout(30_000);
    state.mongo = await startEmbeddedMongo();
    state.client = new MongoClient(state.mongo.uri, { serverSelectionTimeoutMS: 10_000 });
    await state.client.connect();
    state.db = state.client.db(`conformance_${name}_${Date.now().toString(36)}`);
  });
  after(async function () {
    this.timeout(30_000);
    await state.db?.dropDatabase().catch(() => {});
    await state.client?.close();
    await state.mongo?.stop();
  });
  return state;
}

/** Runs `fn` and returns the error it throws (failing if it does not throw). */
export async function errorOf(
  fn: () => Promise<unknown>,
): Promise<Error & Record<string, unknown>> {
  try {
    await fn();
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the operation to fail, but it succeeded");
}
