import { randomFillSync } from "node:crypto";

/**
 * Random bytes are drawn from a pool the CSPRNG refills 4 KiB at a time, as crypto.randomUUID
 * does: one call into OpenSSL per 256 ids instead of two per id (each a few microseconds, on the
 * token exchange's path: jti).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolUsed = POOL_BYTES;

/** `length` fresh random bytes (at most POOL_BYTES), never handed out twice. */
function randomBytesFromPool(length: number): Buffer {
  if (poolUsed + length > POOL_BYTES) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolUsed, poolUsed + length));
  poolUsed += length;
  return bytes;
}

/** Makes ids from the clock it is given; each generator keeps its own ordering state. */
export type IdGenerator = (now?: number) => string;

/**
 * A generator of lowercase UUIDv7s (RFC 9562): 48-bit Unix milliseconds, then random bits, with a
 * 12-bit counter in rand_a so that ids made in the same millisecond (or after the clock steps
 * back) by one generator still sort in creation order.
 */
export function createIdGenerator(clock: () => number = Date.now): IdGenerator {
  let lastMs = 0;
  let sequence = 0;
  return (now = clock()) => {
    if (now <= lastMs) {
      sequence = (sequence + 1) & 0xfff;
      if (sequence === 0) lastMs += 1;
      now = lastMs;
    } else {
      lastMs = now;
      sequence = randomBytesFromPool(2).readUInt16BE(0) & 0x7ff;
    }
    const bytes = randomBytesFromPool(16);
    bytes.writeUIntBE(now, 0, 6);
    bytes[6] = 0x70 | (sequence >> 8);
    bytes[7] = sequence & 0xff;
    bytes[8] = 0x80 | (bytes[8] & 0x3f);
    const hex = bytes.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** The process's id generator, on the wall clock: ids sort in creation order within a process. */
export const newId: IdGenerator = createIdGenerator();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lowercase UUID string: the only id shape the public API hands out or accepts. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/**
 * The Unix milliseconds a UUIDv7 was made at; undefined for any other string (another UUID
 * version, or not a lowercase UUID). Clients never parse ids; a service may read its own.
 */
export function uuidV7Millis(value: string): number | undefined {
  if (!isUuid(value) || value[14] !== "7" || !"89ab".includes(value[19])) return undefined;
  return Number.parseInt(value.slice(0, 8) + value.slice(9, 13), 16);
}
