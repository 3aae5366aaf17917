/**
 * Open cursors: results are materialised when the cursor is created (references to
 * immutable stored documents, so later writes do not change them) and handed out in
 * batches by getMore. Idle cursors are closed after a timeout, as mongod does.
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

export class CursorRegistry {
  private readonly cursors = new Map<number, OpenCursor>();
  private nextId = Math.floor(Math.random() * 2 ** 40) + 1;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly idleTimeoutMs = 10 * 60 * 1000) {
    this.timer = setInterval(() => this.reap(), 30_000);
    this.timer.unref();
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
    const batch = takeBatch(docs, 0, size === 0 ? DEFAULT_FIRST_BATCH : size, transform);
    let id = 0;
    if (!options.single && batch.length < docs.length) {
      id = this.nextId++;
      this.cursors.set(id, {
        id,
        ns,
        docs,
        position: batch.length,
        lastUsed: Date.now(),
        sessionKey: options.sessionKey,
        transform,
      });
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
    cursor.lastUsed = Date.now();
    let nextId = id;
    if (cursor.position >= cursor.docs.length) {
      this.cursors.delete(id);
      nextId = 0;
    }
    return { nextBatch: batch, id: Long.fromNumber(nextId), ns };
  }

  kill(id: number): boolean {
    return this.cursors.delete(id);
  }

  close(): void {
    clearInterval(this.timer);
    this.cursors.clear();
  }

  private reap(): void {
    const now = Date.now();
    for (const [id, cursor] of this.cursors) {
      if (now - cursor.lastUsed > this.idleTimeoutMs) this.cursors.delete(id);
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
