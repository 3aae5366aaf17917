/**
 * An ordered list kept as a sequence of small sorted chunks (a flat, two-level B-tree):
 * O(log n) search, inserts and removals move at most one chunk, and range scans walk the
 * chunks in either direction. This is what the indexes are made of.
 */

export interface Position {
  chunk: number;
  offset: number;
}

const CHUNK_SIZE = 128;

export class SortedList<T> {
  private chunks: T[][] = [[]];
  private count = 0;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.chunks = [[]];
    this.count = 0;
  }

  /** Replaces the contents with items already in order (bulk index builds). */
  loadSorted(items: T[]): void {
    this.chunks = [];
    for (let i = 0; i < items.length; i += CHUNK_SIZE)
      this.chunks.push(items.slice(i, i + CHUNK_SIZE));
    if (this.chunks.length === 0) this.chunks.push([]);
    this.count = items.length;
  }

  get comparator(): (a: T, b: T) => number {
    return this.compare;
  }

  /** The first position whose item is >= probe (or the end position). */
  lowerBound(probe: T): Position {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = chunks[mid];
      if (this.compare(chunk[chunk.length - 1], probe) < 0) lo = mid + 1;
      else hi = mid;
    }
    const chunk = chunks[lo];
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (this.compare(chunk[mid], probe) < 0) a = mid + 1;
      else b = mid;
    }
    return { chunk: lo, offset: a };
  }

  at(position: Position): T | undefined {
    return this.chunks[position.chunk]?.[position.offset];
  }

  insert(item: T): void {
    const pos = this.lowerBound(item);
    const chunk = this.chunks[pos.chunk];
    chunk.splice(pos.offset, 0, item);
    this.count++;
    if (chunk.length > CHUNK_SIZE * 2) {
      const tail = chunk.splice(CHUNK_SIZE);
      this.chunks.splice(pos.chunk + 1, 0, tail);
    }
  }

  /** Removes an item comparing equal to `item`; returns whether one was found. */
  remove(item: T): boolean {
    const pos = this.lowerBound(item);
    const chunk = this.chunks[pos.chunk];
    if (pos.offset >= chunk.length || this.compare(chunk[pos.offset], item) !== 0) return false;
    chunk.splice(pos.offset, 1);
    this.count--;
    if (chunk.length === 0 && this.chunks.length > 1) this.chunks.splice(pos.chunk, 1);
    return true;
  }

  /** Number of items in [from, to) given as positions. */
  countBetween(from: Position, to: Position): number {
    if (from.chunk === to.chunk) return Math.max(0, to.offset - from.offset);
    if (from.chunk > to.chunk) return 0;
    let n = this.chunks[from.chunk].length - from.offset;
    for (let c = from.chunk + 1; c < to.chunk; c++) n += this.chunks[c].length;
    return n + to.offset;
  }

  /** Items in [from, to), forward or backward. */
  *range(from: Position, to: Position, reverse = false): Generator<T> {
    const chunks = this.chunks;
    if (!reverse) {
      let c = from.chunk;
      let o = from.offset;
      while (c < to.chunk || (c === to.chunk && o < to.offset)) {
        const chunk = chunks[c];
        if (chunk === undefined) return;
        if (o >= chunk.length) {
          c++;
          o = 0;
          continue;
        }
        yield chunk[o++];
      }
      return;
    }
    let c = to.chunk;
    let o = to.offset - 1;
    while (c > from.chunk || (c === from.chunk && o >= from.offset)) {
      if (o < 0) {
        c--;
        if (c < 0) return;
        o = chunks[c].length - 1;
        continue;
      }
      yield chunks[c][o--];
    }
  }

  end(): Position {
    const last = this.chunks.length - 1;
    return { chunk: last, offset: this.chunks[last].length };
  }

  start(): Position {
    return { chunk: 0, offset: 0 };
  }

  *all(): Generator<T> {
    for (const chunk of this.chunks) yield* chunk;
  }
}
