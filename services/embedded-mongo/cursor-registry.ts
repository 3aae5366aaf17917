/**
 * Open cursors: results are materialised when the cursor is created (references to
 * immutable stored documents, so later writes do not change them) and handed out in
 * batches by getMore. Idle cursors are closed after a timeout, as mongod does.
 *
 * Materialised results cost memory mongod's cursors do not: clients that open cursors and never
 * finish them (batchSize 1 over a large collection, a thousand times) would hold every result
 * set until the idle timeout and run the server out of memory. So the results all open cursors
 * hold together are bounded (`maxBufferedResults`): past it, the least recently used cursors are
 * closed (their next getMore is CursorNotFound, as after the idle timeout). A single cursor is
 * never refused for its own size.
 */
import { BSON, Long } from "bson";
import type { Doc } from "./bson-values.js";
import { MongoCommandError } from "./errors.js";

export interface OpenCursor {
  id: number;
  ns: string;
  docs: Doc[];
  position: number;
  lastUsed: number;
  sessionKey?: string;
  /** Applied to each batch as it is handed out (projection), so unread results cost nothing. */
  transform?: BatchTransform;
}

export type BatchTransform = (docs: Doc[]) => Doc[];

const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 16 * 1024;
const DEFAULT_FIRST_BATCH = 101;

/** About 16 MB of references (more for aggregation results, which are new documents). */
export const MAX_BUFFERED_RESULTS = 2_000_000;

export class CursorRegistry {
  /** In order of last use, least recent first (a Map keeps insertion order; use re-inserts). */
  private readonly cursors = new Map<number, OpenCursor>();
  private nextId = Math.floor(Math.random() * 2 ** 40) + 1;
  private readonly timer: NodeJS.Timeout;
  /** Results not handed out yet, over every open cursor. */
  private buffered = 0;

  constructor(
    private readonly idleTimeoutMs = 10 * 60 * 1000,
    private readonly maxBufferedResults = MAX_BUFFERED_RESULTS,
  ) {
    this.timer = setInterval(() => this.reap(), 30_000);
    this.timer.unref();
  }

  /** Results the open cursors still hold, and how many cursors are open (for tests, stats). */
  get usage(): { cursors: number; bufferedResults: number } {
    return { cursors: this.cursors.size, bufferedResults: this.buffered };
  }

  /** Builds the `cursor` reply field for a result set, registering a cursor if docs remain. */
  open(
    ns: string,
    docs: Doc[],
    batchSize: unknown,
    options: { sessionKey?: string; single?: boolean; transform?: BatchTransform } = {},
  ): Doc {
    const size =
      batchSize === undefined || batchSize === null ? DEFAULT_FIRST_BATCH : Number(batchSize);
    const { transform } = options;
    // batchSize 0: an open cursor and an empty first batch, as mongod answers.
    const batch = size === 0 ? [] : takeBatch(docs, 0, size, transform);
    let id = 0;
    if (!options.single && batch.length < docs.length) {
      id = this.nextId++;
      this.makeRoom(docs.length - batch.length);
      this.cursors.set(id, {
        id,
        ns,
        docs,
        position: batch.length,
        lastUsed: Date.now(),
        sessionKey: options.sessionKey,
        transform,
      });
      this.buffered += docs.length - batch.length;
    }
    return { firstBatch: batch, id: Long.fromNumber(id), ns };
  }

  getMore(id: number, ns: string, batchSize: unknown): Doc {
    const cursor = this.cursors.get(id);
    if (!cursor) throw new MongoCommandError("CursorNotFound", `cursor id ${id} not found`);
    if (cursor.ns !== ns) {
      throw new MongoCommandError(
        "Unauthorized",
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    const size = batchSize === undefined || batchSize === null ? 0 : Number(batchSize);
    const batch = takeBatch(cursor.docs, cursor.position, size, cursor.transform);
    cursor.position += batch.length;
    this.buffered -= batch.length;
    cursor.lastUsed = Date.now();
    let nextId = id;
    if (cursor.position >= cursor.docs.length) {
      this.drop(id);
      nextId = 0;
    } else {
      // Most recently used: last in the map, the last one evicted.
      this.cursors.delete(id);
      this.cursors.set(id, cursor);
    }
    return { nextBatch: batch, id: Long.fromNumber(nextId), ns };
  }

  kill(id: number): boolean {
    return this.drop(id);
  }

  close(): void {
    clearInterval(this.timer);
    this.cursors.clear();
    this.buffered = 0;
  }

  private drop(id: number): boolean {
    const cursor = this.cursors.get(id);
    if (!cursor) return false;
    this.cursors.delete(id);
    this.buffered -= cursor.docs.length - cursor.position;
    return true;
  }

  /** Closes the least recently used cursors until `incoming` more results fit (or none is left). */
  private makeRoom(incoming: number): void {
    for (const id of this.cursors.keys()) {
      if (this.buffered + incoming <= this.maxBufferedResults) return;
      this.drop(id);
    }
  }

  private reap(): void {
    const now = Date.now();
    for (const [id, cursor] of this.cursors) {
      if (now - cursor.lastUsed > this.idleTimeoutMs) this.drop(id);
    }
  }
}

/**
 * Up to `size` documents (0: as many as fit) from `start`, capped at about 16 MB whatever
 * their number (101 documents of 1 MB would not fit one reply), but never empty.
 */
function takeBatch(docs: Doc[], start: number, size: number, transform?: BatchTransform): Doc[] {
  const end = size > 0 ? Math.min(docs.length, start + size) : docs.length;
  const out: Doc[] = [];
  let bytes = 0;
  for (let i = start; i < end; i += DEFAULT_FIRST_BATCH) {
    const chunk = docs.slice(i, Math.min(end, i + DEFAULT_FIRST_BATCH));
    for (const doc of transform ? transform(chunk) : chunk) {
      bytes += BSON.calculateObjectSize(doc);
      if (bytes > MAX_BATCH_BYTES && out.length > 0) return out;
      out.push(doc);
    }
  }
  return out;
}
