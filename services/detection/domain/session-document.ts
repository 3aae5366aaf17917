/**
 * How a detection session is stored (collection `sessions`, one document per session). The
 * public resource is derived from it (session-resource.ts); the lease and the checkpoint are
 * internal.
 */
export type SessionMode = "live" | "replay";

export type SessionStatus =
  | "created"
  | "streaming"
  | "finalizing"
  | "completed"
  | "failed"
  | "cancelled";

/** Who may process the session's frames right now (see lease/attachment-lease.ts). */
export interface SessionLease {
  /** The replica incarnation holding it (replica-presence.ts). */
  readonly owner: string;
  /** The holder's gRPC address, for ReleaseAttachment / GetLiveProgress / NotifyFinalize. */
  readonly owner_url?: string;
  /** `attach:<id>` for a client attachment, `settle` for a replica completing the session alone. */
  readonly purpose: string;
  readonly acquired_at: Date;
}

/** The engine state at the last durable point, and the counts that go with it. */
export interface SessionCheckpoint {
  /** JSON of the engine snapshot (a string: snapshots may hold keys BSON would refuse). */
  readonly engine: string;
  readonly accepted_frames_total: number;
  readonly last_seq: number;
  readonly at: Date;
  /**
   * How many chunks of records taken out of the engine (collection `session_records`) this
   * checkpoint counts; absent (0) in checkpoints written before records were taken out.
   */
  readonly record_chunks?: number;
  /**
   * The last events sent before this checkpoint, as sent (stream/recent-events.ts): sent again
   * to a client that reconnects without having read them. Absent in older checkpoints.
   */
  readonly recent_events?: readonly { readonly event_seq: number; readonly message: string }[];
}

export interface SessionDocument {
  _id: string;
  organization_id: string;
  project_id: string;
  movespec_id: string;
  movespec_version_id: string;
  mode: SessionMode;
  status: SessionStatus;
  contract_major: number;
  created_at: Date;
  /** created_at + attach timeout: a never-attached session is cancelled after it. */
  attach_deadline: Date;
  /** created_at + maximum duration. */
  expires_at: Date;
  /** First attachment; from then on the idle timeout applies instead of the attach timeout. */
  attached_at?: Date;
  started_at?: Date;
  ended_at?: Date;
  /** Last message from the client, as of the last checkpoint or detach. */
  last_activity_at: Date;
  /** Durable count (as of the last checkpoint); GET adds the live owner's progress. */
  accepted_frames_total: number;
  last_seq?: number;
  /** Fixed by the first attachment: a checkpoint only restores on the same topology. */
  topology?: string;
  checkpoint?: SessionCheckpoint;
  lease: SessionLease | null;
  /** Incremented by every lease change: the fencing token of every write made under a lease. */
  lease_epoch: number;
  finalize_requested_at?: Date;
  error_code?: string;
  error_message?: string;
  terminal_outcome?: string;
}

export const ACTIVE_STATUSES: readonly SessionStatus[] = ["created", "streaming", "finalizing"];
export const TERMINAL_STATUSES: readonly SessionStatus[] = ["completed", "failed", "cancelled"];

export function isTerminal(status: SessionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
