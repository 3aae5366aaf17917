import { type Collection, type Db, type Document, MongoClient } from "mongodb";
import type { Logger } from "../logging/logger.js";

export interface MongoConnection {
  readonly client: MongoClient;
  readonly db: Db;
}

/**
 * Connects with retries until MongoDB answers a ping or `signal` aborts: a service starts before
 * its database is reachable and simply stays NOT_SERVING meanwhile.
 */
export async function connectMongo(
  options: {
    uri: string;
    database: string;
    appName: string;
    timeoutMs: number;
    /** The `maxTimeMS` of every query through the returned `db` (withQueryTimeLimit). */
    maxTimeMs: number;
    logger: Logger;
    /** Each failed attempt's reason (readiness reports the latest). */
    onAttemptFailed?: (message: string) => void;
  },
  signal: AbortSignal,
): Promise<MongoConnection | undefined> {
  let delayMs = 100;
  while (!signal.aborted) {
    const client = new MongoClient(options.uri, {
      appName: options.appName,
      // An outage fails each call after this long (UNAVAILABLE) instead of holding it up to the
      // caller's deadline; the driver reconnects by itself when the database is back.
      serverSelectionTimeoutMS: options.timeoutMs,
      connectTimeoutMS: options.timeoutMs,
    });
    // Shutting down must not wait out a connection attempt's server-selection timeout.
    const abandon = () => void client.close(true).catch(() => undefined);
    signal.addEventListener("abort", abandon, { once: true });
    try {
      await client.connect();
      const db = client.db(options.database);
      await db.command({ ping: 1 });
      signal.removeEventListener("abort", abandon);
      return { client, db: withQueryTimeLimit(db, options.maxTimeMs) };
    } catch (error) {
      signal.removeEventListener("abort", abandon);
      if (signal.aborted) break;
      await client.close(true).catch(() => undefined);
      const message = error instanceof Error ? error.message : String(error);
      options.onAttemptFailed?.(message);
      options.logger.warn({ err: message, retryInMs: delayMs }, "MongoDB not answering yet");
      await sleep(delayMs, signal);
      delayMs = Math.min(delayMs * 2, 2000);
    }
  }
  return undefined;
}

/**
 * Where each collection method that runs a query takes its options (the driver has no default
 * `maxTimeMS` for a client, a database or a collection).
 */
const OPTIONS_ARGUMENT: Readonly<Record<string, number>> = {
  find: 1,
  findOne: 1,
  aggregate: 1,
  countDocuments: 1,
  estimatedDocumentCount: 0,
  distinct: 2,
  findOneAndDelete: 1,
  findOneAndUpdate: 2,
  findOneAndReplace: 2,
  updateOne: 2,
  updateMany: 2,
  replaceOne: 2,
  deleteOne: 1,
  deleteMany: 1,
};

/**
 * `db` whose collections give every query and filtered write `maxTimeMS` (unless the call sets
 * its own): the database stops a query that runs away (a missing index, a huge collection)
 * instead of working on for a request nobody waits for any more. 0 leaves `db` as it is.
 */
export function withQueryTimeLimit(db: Db, maxTimeMS: number): Db {
  if (maxTimeMS <= 0) return db;
  return new Proxy(db, {
    get(target, property) {
      if (property === "collection") {
        return (name: string, options?: object) =>
          limitCollection(target.collection(name, options), maxTimeMS);
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function limitCollection<T extends Document>(
  collection: Collection<T>,
  maxTimeMS: number,
): Collection<T> {
  return new Proxy(collection, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      const at = typeof property === "string" ? OPTIONS_ARGUMENT[property] : undefined;
      if (at === undefined) return value.bind(target);
      return (...args: unknown[]) => {
        const options = (args[at] ?? {}) as { maxTimeMS?: number };
        const limited = [...args];
        limited[at] = options.maxTimeMS === undefined ? { ...options, maxTimeMS } : options;
        return value.apply(target, limited);
      };
    },
  });
}

/** Resolves true while MongoDB answers a ping within the timeout. */
export async function pingMongo(db: Db, timeoutMs: number): Promise<boolean> {
  try {
    await db.command({ ping: 1 }, { timeoutMS: timeoutMs });
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
