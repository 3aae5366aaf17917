import { newId } from "@movement-detection/shared/ids";
import type { SessionDocument } from "../../../services/detection/domain/session-document.js";

/** 2030-01-01: a fixed instant, so a test's documents never depend on today's date. */
export const SESSION_T0 = Date.UTC(2030, 0, 1);

/**
 * A session document as the detection store holds one, created at `at` (ms) and under its first
 * lease, with `fields` laid over it: for the tests and benchmarks that write to the store directly.
 */
export function sessionDocument(
  fields: Partial<SessionDocument> = {},
  at = SESSION_T0,
): SessionDocument {
  return {
    _id: newId(),
    organization_id: newId(),
    project_id: newId(),
    movespec_id: newId(),
    movespec_version_id: newId(),
    mode: "replay",
    status: "created",
    contract_major: 1,
    created_at: new Date(at),
    attach_deadline: new Date(at + 60_000),
    expires_at: new Date(at + 3_600_000),
    last_activity_at: new Date(at),
    accepted_frames_total: 0,
    lease: { owner: "replica-a", purpose: "stream", acquired_at: new Date(at) },
    lease_epoch: 1,
    ...fields,
  };
}
