import { createHash } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { Reason } from "../errors/reasons.js";
import { Code, ConnectError, serviceError } from "../errors/service-error.js";
import { newId } from "../ids/uuid-v7.js";
import { guardStore, insertUnique } from "../store/store-errors.js";
import { assertValidIdempotencyKey } from "./idempotency-key.js";

/**
 * Idempotency-Key support over MongoDB (contract: "Safe retries"), for any service.
 *
 * The first request with a key claims it (one document, unique by scope and key), runs, and stores
 * its response; a repeat within the retention window with the same fingerprint gets that response
 * back and runs nothing; with another fingerprint it is FAILED_PRECONDITION IDEMPOTENCY_KEY_REUSED.
 * A repeat that arrives while the first is still running waits for it (up to `waitMs`), then is
 * ABORTED CONCURRENT_MODIFICATION (retryable).
 *
 * Crash safety: each claim carries a `reservedId` that `execute` should use as the id of whatever
 * it creates. If the process dies after creating the resource but before storing the response,
 * the claim's lease runs out and the next repeat runs `execute` again with the SAME reservedId, so
 * `execute` finds its own resource (duplicate key) and returns it instead of creating a second one.
 * When `execute` fails with a client-side error (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
 * ...: nothing was done) the key is forgotten, so it can be used again with a corrected request;
 * any other failure (UNAVAILABLE, INTERNAL, ...) only releases the claim, so the same request may
 * be retried, with the same reservedId.
 */
export interface IdempotencyStore {
  /** Creates the collection's indexes (idempotent); call once at service start. */
  ensureIndexes(): Promise<void>;
  /**
   * Runs `execute` at most once per (scope, key) whose result is stored. `execute` returns a
   * JSON-serialisable value (e.g. `toJson(Schema, message)`), which is what repeats get back.
   */
  run<T>(
    request: IdempotentRequest,
    execute: (attempt: Attempt) => Promise<T>,
  ): Promise<Outcome<T>>;
}

export interface IdempotentRequest {
  /** Who and what, e.g. `${projectId}:CreateMoveSpec`: keys of different scopes never collide. */
  readonly scope: string;
  /** The client's Idempotency-Key (1..255 printable ASCII, else INVALID_ARGUMENT FIELD_INVALID). */
  readonly key: string;
  /** `fingerprintOf(<the request's meaningful fields>)`: same key + other fingerprint = reuse. */
  readonly fingerprint: string;
}

export interface Attempt {
  /** A fresh UUIDv7 for the first attempt, the same one for every retry of an unfinished attempt. */
  readonly reservedId: string;
}

export interface Outcome<T> {
  readonly value: T;
  /** True when `value` is the stored response of an earlier request. */
  readonly replayed: boolean;
}

export interface IdempotencyStoreOptions {
  /** Default `idempotency_keys`. */
  readonly collection?: string;
  /** How long a key is remembered; default 24 h (the contract's window). */
  readonly retentionMs?: number;
  /** How long an unfinished first attempt holds the key before a repeat may take over; default 30 s. */
  readonly leaseMs?: number;
  /** How long a repeat waits for an unfinished first attempt; default 5 s. */
  readonly waitMs?: number;
  /** For tests. */
  readonly now?: () => number;
}

interface KeyRecord {
  _id: string;
  scope: string;
  key: string;
  fingerprint: string;
  state: "pending" | "done";
  reserved_id: string;
  lease_until: Date;
  created_at: Date;
  expires_at: Date;
  /** JSON of the stored response (a string, so any JSON shape fits BSON). */
  response?: string;
}

/** Failures that mean the request was refused before anything was written. */
const NOTHING_DONE: ReadonlySet<Code> = new Set([
  Code.InvalidArgument,
  Code.NotFound,
  Code.AlreadyExists,
  Code.PermissionDenied,
  Code.FailedPrecondition,
  Code.OutOfRange,
  Code.Unauthenticated,
  Code.ResourceExhausted,
]);

const DAY_MS = 24 * 60 * 60 * 1000;
const POLL_MS = 25;

export function createIdempotencyStore(
  db: Db,
  options: IdempotencyStoreOptions = {},
): IdempotencyStore {
  const records: Collection<KeyRecord> = db.collection<KeyRecord>(
    options.collection ?? "idempotency_keys",
  );
  const retentionMs = options.retentionMs ?? DAY_MS;
  const leaseMs = options.leaseMs ?? 30_000;
  const waitMs = options.waitMs ?? 5000;
  const now = options.now ?? Date.now;

  /** Tries to own the key: returns the attempt, or the record that someone else holds. */
  async function claim(id: string, request: IdempotentRequest): Promise<Attempt | KeyRecord> {
    const at = now();
    const fresh: KeyRecord = {
      _id: id,
      scope: request.scope,
      key: request.key,
      fingerprint: request.fingerprint,
      state: "pending",
      reserved_id: newId(at),
      lease_until: new Date(at + leaseMs),
      created_at: new Date(at),
      expires_at: new Date(at + retentionMs),
    };
    if ((await insertUnique(() => records.insertOne(fresh))) === "inserted") {
      return { reservedId: fresh.reserved_id };
    }
    const existing = await records.findOne({ _id: id });
    if (!existing) return claim(id, request);
    if (existing.expires_at.getTime() <= at) {
      // Forgotten: the key starts a new life (the TTL index may not have removed it yet).
      const replaced = await records.replaceOne(
        { _id: id, expires_at: existing.expires_at },
        fresh,
      );
      return replaced.modifiedCount === 1 ? { reservedId: fresh.reserved_id } : claim(id, request);
    }
    if (existing.fingerprint !== request.fingerprint) return existing;
    if (existing.state === "pending" && existing.lease_until.getTime() <= at) {
      // The first attempt died (or failed) mid-way: take over with its reserved id.
      const taken = await records.updateOne(
        { _id: id, state: "pending", lease_until: existing.lease_until },
        { $set: { lease_until: new Date(at + leaseMs) } },
      );
      if (taken.modifiedCount === 1) return { reservedId: existing.reserved_id };
      return claim(id, request);
    }
    return existing;
  }

  return guardStore("idempotency", {
    async ensureIndexes() {
      await records.createIndex(
        { expires_at: 1 },
        { expireAfterSeconds: 0, name: "expires_at_ttl" },
      );
    },

    async run(request, execute) {
      assertValidIdempotencyKey(request.key);
      const id = createHash("sha256").update(`${request.scope}\n${request.key}`).digest("hex");
      const deadline = now() + waitMs;
      for (;;) {
        const claimed = await claim(id, request);
        if ("reservedId" in claimed) {
          let value: Awaited<ReturnType<typeof execute>>;
          try {
            value = await execute(claimed);
          } catch (error) {
            const forget = NOTHING_DONE.has(ConnectError.from(error).code);
            const mine = { _id: id, reserved_id: claimed.reservedId, state: "pending" as const };
            await (forget
              ? records.deleteOne(mine)
              : records.updateOne(mine, { $set: { lease_until: new Date(0) } })
            ).catch(() => undefined);
            throw error;
          }
          // Only while still pending: a late first attempt never overwrites a takeover's response.
          await records.updateOne(
            { _id: id, reserved_id: claimed.reservedId, state: "pending" },
            { $set: { state: "done", response: JSON.stringify(value) } },
          );
          return { value, replayed: false };
        }
        if (claimed.fingerprint !== request.fingerprint) {
          throw serviceError(
            Code.FailedPrecondition,
            Reason.idempotencyKeyReused,
            "this Idempotency-Key was already used with a different request",
          );
        }
        if (claimed.state === "done" && claimed.response !== undefined) {
          return { value: JSON.parse(claimed.response), replayed: true };
        }
        if (now() >= deadline) {
          throw serviceError(
            Code.Aborted,
            Reason.concurrentModification,
            "a request with this Idempotency-Key is still in progress",
            { retry_after_seconds: 1 },
          );
        }
        await sleep(POLL_MS);
      }
    },
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
