/**
 * A query that is slow on purpose, for time-limit tests: documents holding random strings of
 * a's and b's, searched for an `a` 200 characters before the end. No index or literal prefix
 * helps, and RE2's DFA gives up on such a window (too many states), so each document costs a
 * full NFA pass, 20-200 ms depending on the load: the whole query some seconds, which `maxTimeMS` cuts between two
 * documents.
 */
import type { Collection, Document } from "mongodb";

export const SLOW_FILTER = { s: { $regex: "[ab]*a[ab]{200}$" } };

/** Fills `collection` with `count` documents `{_id: i, s: <length random a/b>}` (seeded). */
export async function fillSlowCollection<T extends Document>(
  collection: Collection<T>,
  count = 120,
  length = 2048,
): Promise<void> {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const docs = Array.from({ length: count }, (_, i) => ({
    _id: i,
    s: Array.from({ length }, () => (random() < 0.5 ? "a" : "b")).join(""),
  }));
  await collection.insertMany(docs as never);
}

/** How long `run` took, and what it returned or threw. */
export async function timed<T>(
  run: () => Promise<T>,
): Promise<{ ms: number; value?: T; error?: Error & { code?: unknown; codeName?: unknown } }> {
  const started = performance.now();
  try {
    const value = await run();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error & { code?: unknown } };
  }
}
