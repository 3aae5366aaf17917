import { type Db, MongoClient } from "mongodb";
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
      return { client, db };
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
