/**
 * How long ended sessions are kept (DETECTION_SESSION_RETENTION_DAYS), as the rules the stores'
 * TTL indexes and the reads apply. Pure: the clock is an argument.
 *
 * An ended session is deleted by the database's TTL monitor once `ended_at` is older than the
 * retention. The monitor runs on the database's clock, every minute or so (MongoDB: 60 s), so a
 * read also treats a session past its retention as gone: what a client sees does not depend on
 * when the monitor last ran.
 */
import { uuidV7Millis } from "@movement-detection/shared/ids";
import type { SessionDocument } from "./session-document.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The retention in milliseconds; undefined when sessions are kept for ever (0 days). */
export function retentionMs(days: number): number | undefined {
  return days > 0 ? days * DAY_MS : undefined;
}

/** Whether `session` ended at least `retention` ago (and is gone, or about to be). */
export function isPastRetention(
  session: Pick<SessionDocument, "ended_at">,
  now: number,
  retention: number | undefined,
): boolean {
  if (retention === undefined || session.ended_at === undefined) return false;
  return session.ended_at.getTime() + retention <= now;
}

/**
 * Whether a session id the caller cannot see may name a session deleted by the retention: its
 * id (a UUIDv7 made when the session was created, before it ended) is at least `retention` old.
 * It says nothing about whether such a session existed, or in which project: it depends on the
 * id and the clock alone, so answering it reveals nothing (contract: a private session answers
 * like one that does not exist).
 */
export function mayHaveExpired(
  sessionId: string,
  now: number,
  retention: number | undefined,
): boolean {
  if (retention === undefined) return false;
  const createdAt = uuidV7Millis(sessionId);
  return createdAt !== undefined && createdAt + retention <= now;
}

/**
 * How long a record chunk is kept after it was written: it matters only until its session ends
 * (at most the maximum duration after the chunk was written, since the session existed then),
 * and the end removes it; a chunk left behind (the removal failed, the process died) is deleted
 * as long after that as an ended session is.
 */
export function recordChunkTtlMs(
  maxDurationMs: number,
  retention: number | undefined,
): number | undefined {
  return retention === undefined ? undefined : maxDurationMs + retention;
}
