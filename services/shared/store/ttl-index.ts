import { type Collection, type Document, MongoServerError } from "mongodb";

/** What `ensureTtlIndex` found and did. */
export type TtlIndexChange = "created" | "kept" | "replaced" | "dropped" | "none";

export interface TtlIndexSpec {
  /** The index's name: the one thing that identifies it across restarts. */
  readonly name: string;
  /** The date field documents expire by. */
  readonly field: string;
  /** Seconds after the field's date a document is deleted; undefined: no index, kept for ever. */
  readonly expireAfterSeconds: number | undefined;
}

/** A TTL index's seconds for a duration in milliseconds (rounded up: never sooner); undefined stays. */
export function ttlSeconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const INDEX_CONFLICTS: ReadonlySet<number> = new Set([85, 86]);

/**
 * Makes the TTL index `spec.name` what the configuration says, whatever an earlier start (with
 * another retention) left: created, kept, replaced (dropped and created again: MongoDB refuses an
 * index under an existing name with other options, and the embedded store has no collMod) or
 * dropped. A retention that changes applies to every document at once, the old ones included.
 *
 * Every replica of a service must be given the same setting: each start makes the index its own.
 * Two replicas starting together with different ones make it twice, in turn; one attempt more
 * settles on the last.
 */
export async function ensureTtlIndex<T extends Document>(
  collection: Collection<T>,
  spec: TtlIndexSpec,
): Promise<TtlIndexChange> {
  try {
    return await reconcile(collection, spec);
  } catch (error) {
    if (!(error instanceof MongoServerError) || !INDEX_CONFLICTS.has(Number(error.code))) {
      throw error;
    }
    return reconcile(collection, spec);
  }
}

async function reconcile<T extends Document>(
  collection: Collection<T>,
  { name, field, expireAfterSeconds }: TtlIndexSpec,
): Promise<TtlIndexChange> {
  const existing = (await indexesOf(collection)).find((index) => index.name === name);
  if (expireAfterSeconds === undefined) {
    if (!existing) return "none";
    await dropIndex(collection, name);
    return "dropped";
  }
  if (existing) {
    const same =
      existing.expireAfterSeconds === expireAfterSeconds &&
      JSON.stringify(existing.key) === JSON.stringify({ [field]: 1 });
    if (same) return "kept";
    await dropIndex(collection, name);
  }
  await collection.createIndex({ [field]: 1 } as never, { name, expireAfterSeconds });
  return existing ? "replaced" : "created";
}

async function indexesOf<T extends Document>(collection: Collection<T>): Promise<Document[]> {
  try {
    return await collection.listIndexes().toArray();
  } catch (error) {
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

async function dropIndex<T extends Document>(collection: Collection<T>, name: string) {
  try {
    await collection.dropIndex(name);
  } catch (error) {
    // Another replica dropped it first.
    if (!(error instanceof MongoServerError && error.code === INDEX_NOT_FOUND)) throw error;
  }
}
