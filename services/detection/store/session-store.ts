import { ensureTtlIndex, guardStore, ttlSeconds } from "@movement-detection/shared/store";
import type { Collection, Db, Filter } from "mongodb";
import {
  ACTIVE_STATUSES,
  type SessionDocument,
  type SessionLease,
  type SessionStatus,
  TERMINAL_STATUSES,
} from "../domain/session-document.js";

/** Fields a lease holder writes with a checkpoint (or when it lets go of the session). */
export interface ProgressWrite {
  readonly checkpoint: SessionDocument["checkpoint"];
  readonly accepted_frames_total: number;
  readonly last_seq?: number;
  readonly last_activity_at: Date;
}

/** One session's checkpoint among others (SessionStore.saveStreamingProgress). */
export interface ProgressOf {
  readonly sessionId: string;
  readonly epoch: number;
  readonly progress: ProgressWrite;
}

/** The terminal state written once, by whoever ends the session. */
export interface TerminalWrite {
  readonly status: Extract<SessionStatus, "completed" | "failed" | "cancelled">;
  readonly ended_at: Date;
  /**
   * When the first frame came, as the stream's owner saw it: written unless the session already
   * has one. The status write at the first frame is not awaited, and need not have landed (or
   * succeeded) by the time the session ends.
   */
  readonly started_at?: Date;
  readonly accepted_frames_total: number;
  readonly last_seq?: number;
  readonly terminal_outcome?: string;
  readonly error_code?: string;
  readonly error_message?: string;
  readonly checkpoint?: SessionDocument["checkpoint"];
  /** A finalize ended here without a `finalizing` write first (session-lifecycle.ts). */
  readonly finalize_requested_at?: Date;
}

/**
 * The `sessions` collection. Every write made on behalf of a lease is conditional on
 * `lease_epoch` (the fencing token): a replica that lost its lease can no longer write.
 */
export interface SessionStore {
  ensureIndexes(): Promise<void>;
  insert(session: SessionDocument): Promise<void>;
  remove(sessionId: string): Promise<void>;
  find(sessionId: string): Promise<SessionDocument | null>;
  /** The session only if it belongs to `projectId` (otherwise it does not exist for the caller). */
  findInProject(sessionId: string, projectId: string): Promise<SessionDocument | null>;
  countActive(projectId: string): Promise<number>;
  /** Takes the lease if the epoch is still `epoch`; returns the session under the new lease. */
  takeLease(
    sessionId: string,
    epoch: number,
    lease: SessionLease,
    also?: Partial<SessionDocument>,
  ): Promise<SessionDocument | undefined>;
  /** Clears the lease held at `epoch` (and moves the epoch on, fencing its holder). */
  clearLease(sessionId: string, epoch: number): Promise<boolean>;
  /** Writes progress under the lease; returns the session's status, or undefined if the lease is lost. */
  saveProgress(
    sessionId: string,
    epoch: number,
    progress: ProgressWrite,
    release: boolean,
  ): Promise<SessionStatus | undefined>;
  /**
   * The checkpoints of several streaming sessions, none letting go of its lease, in one command
   * (one round trip and one log record in the store for all of them). True when every one was
   * written: each session was `streaming` under its epoch, which is all saveProgress would have
   * said of it. False when some were not (the lease lost, the session finalizing or still
   * `created`): the ones that matched were written, and the caller asks saveProgress about each
   * (writing the same fields again changes nothing).
   */
  saveStreamingProgress(writes: readonly ProgressOf[]): Promise<boolean>;
  markStreaming(sessionId: string, epoch: number, at: Date): Promise<void>;
  /**
   * created|streaming -> finalizing; the session as the transition left it (its lease is the
   * attachment that must complete it), or undefined if the status was not `from` any more. With
   * `epoch` (an attachment finalizing its own session) only under the lease held at it: a replica
   * replaced by a newer attachment must not mark the session that one is streaming.
   */
  requestFinalize(
    sessionId: string,
    from: SessionStatus,
    at: Date,
    epoch?: number,
  ): Promise<SessionDocument | undefined>;
  /**
   * Writes the terminal state under the lease (and clears it); false if the lease is lost. The
   * session's checkpoint goes unless `terminal` carries one: nothing resumes an ended session, and
   * ended sessions are kept for the retention.
   */
  end(sessionId: string, epoch: number, terminal: TerminalWrite): Promise<boolean>;
  /** Active sessions that may need the sweeper: past a deadline, idle, or finalizing. */
  sweepCandidates(now: Date, idleSince: Date, limit: number): Promise<SessionDocument[]>;
}

export interface SessionStoreOptions {
  /**
   * How long an ended session is kept after `ended_at` (domain/session-retention.ts); undefined:
   * for ever. The database's TTL monitor deletes it, summary and all.
   */
  readonly retentionMs?: number;
}

export function createSessionStore(db: Db, options: SessionStoreOptions = {}): SessionStore {
  const sessions: Collection<SessionDocument> = db.collection<SessionDocument>("sessions");
  const leaseFilter = (sessionId: string, epoch: number): Filter<SessionDocument> => ({
    _id: sessionId,
    lease_epoch: epoch,
  });

  return guardStore("sessions", {
    async ensureIndexes() {
      await Promise.all([
        sessions.createIndex({ project_id: 1, status: 1 }, { name: "project_status" }),
        sessions.createIndex({ status: 1 }, { name: "status" }),
        // Only ended sessions have `ended_at`: active ones are never touched by it.
        ensureTtlIndex(sessions, {
          name: "retention",
          field: "ended_at",
          expireAfterSeconds: ttlSeconds(options.retentionMs),
        }),
      ]);
    },

    async insert(session) {
      await sessions.insertOne(session);
    },

    async remove(sessionId) {
      await sessions.deleteOne({ _id: sessionId });
    },

    find(sessionId) {
      return sessions.findOne({ _id: sessionId });
    },

    findInProject(sessionId, projectId) {
      return sessions.findOne({ _id: sessionId, project_id: projectId });
    },

    countActive(projectId) {
      return sessions.countDocuments({
        project_id: projectId,
        status: { $in: [...ACTIVE_STATUSES] },
      });
    },

    async takeLease(sessionId, epoch, lease, also = {}) {
      const after = await sessions.findOneAndUpdate(
        { _id: sessionId, lease_epoch: epoch, status: { $nin: [...TERMINAL_STATUSES] } },
        { $set: { ...also, lease, lease_epoch: epoch + 1 } },
        { returnDocument: "after" },
      );
      return after ?? undefined;
    },

    async clearLease(sessionId, epoch) {
      const result = await sessions.updateOne(leaseFilter(sessionId, epoch), {
        $set: { lease: null },
        $inc: { lease_epoch: 1 },
      });
      return result.matchedCount === 1;
    },

    async saveProgress(sessionId, epoch, progress, release) {
      const set = progressFields(progress);
      if (release) set.lease = null;
      const after = await sessions.findOneAndUpdate(
        leaseFilter(sessionId, epoch),
        release ? { $set: set, $inc: { lease_epoch: 1 } } : { $set: set },
        { projection: { status: 1 }, returnDocument: "after" },
      );
      return after?.status;
    },

    async saveStreamingProgress(writes) {
      if (writes.length === 0) return true;
      const result = await sessions.bulkWrite(
        writes.map(({ sessionId, epoch, progress }) => ({
          updateOne: {
            filter: { ...leaseFilter(sessionId, epoch), status: "streaming" },
            update: { $set: progressFields(progress) },
          },
        })),
        { ordered: false },
      );
      return result.matchedCount === writes.length;
    },

    async markStreaming(sessionId, epoch, at) {
      await sessions.updateOne(
        { _id: sessionId, lease_epoch: epoch, status: "created" },
        { $set: { status: "streaming", started_at: at } },
      );
    },

    async requestFinalize(sessionId, from, at, epoch) {
      const after = await sessions.findOneAndUpdate(
        epoch === undefined
          ? { _id: sessionId, status: from }
          : { ...leaseFilter(sessionId, epoch), status: from },
        { $set: { status: "finalizing", finalize_requested_at: at } },
        { returnDocument: "after", projection: { checkpoint: 0 } },
      );
      return after ?? undefined;
    },

    async end(sessionId, epoch, { started_at, ...terminal }) {
      const set: Record<string, unknown> = { lease: null };
      for (const [key, value] of Object.entries(terminal))
        if (value !== undefined) set[key] = value;
      const result = await sessions.updateOne(
        { ...leaseFilter(sessionId, epoch), status: { $in: [...ACTIVE_STATUSES] } },
        // $min: a missing started_at is set, an earlier one kept.
        {
          $set: set,
          $inc: { lease_epoch: 1 },
          ...(started_at ? { $min: { started_at } } : {}),
          ...(terminal.checkpoint ? {} : { $unset: { checkpoint: "" } }),
        },
      );
      return result.modifiedCount === 1;
    },

    sweepCandidates(now, idleSince, limit) {
      return sessions
        .find({
          status: { $in: [...ACTIVE_STATUSES] },
          $or: [
            { status: "finalizing" },
            { expires_at: { $lte: now } },
            { attached_at: { $exists: false }, attach_deadline: { $lte: now } },
            { attached_at: { $exists: true }, last_activity_at: { $lte: idleSince } },
          ],
        })
        .project<SessionDocument>({ checkpoint: 0 })
        .limit(limit)
        .toArray();
    },
  });
}

/** The fields a checkpoint sets: a last_seq only once there is one. */
function progressFields(progress: ProgressWrite): Record<string, unknown> {
  const set: Record<string, unknown> = { ...progress };
  if (progress.last_seq === undefined) delete set.last_seq;
  return set;
}
