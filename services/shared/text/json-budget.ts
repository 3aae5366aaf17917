/**
 * Cutting lists to a byte budget of JSON, for documents that must stay under a size (an error's
 * metadata, a session's final summary): a list keeps its first items, which say the most (the
 * first issues of a draft, the first repetitions of a session), and the caller records how many
 * it left out.
 */

/** The bytes of a value as UTF-8 JSON text. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

export interface LeadingFit {
  /** How many of the first items fit. */
  readonly count: number;
  /** The bytes those items take in a JSON array, commas included (the brackets not). */
  readonly bytes: number;
}

/** How many of a list's first items fit in `room` bytes of a JSON array's contents. */
export function leadingItemsWithin(items: readonly unknown[], room: number): LeadingFit {
  let count = 0;
  let bytes = 0;
  for (const item of items) {
    const size = jsonBytes(item) + (count > 0 ? 1 : 0);
    if (bytes + size > room) break;
    bytes += size;
    count += 1;
  }
  return { count, bytes };
}
