import { createHash } from "node:crypto";

/**
 * ETags. A draft's is its revision (`"r7"`), which `If-Match` sends back to make the replacement
 * conditional; a MoveSpec's is a hash of the JSON answered, for caches.
 */
export function draftETag(revision: number): string {
  return `"r${revision}"`;
}

export function contentETag(body: unknown): string {
  return `"${createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 22)}"`;
}

export type IfMatch =
  | { kind: "absent" }
  | { kind: "any" }
  /** One or more of our revision ETags, in the order sent. */
  | { kind: "revisions"; revisions: readonly number[] }
  | { kind: "never" };

/** Our ETag exactly, as strong comparison has it: `"r017"` is not `"r17"`. */
const REVISION_ETAG = /^"r([1-9]\d{0,8})"$/;

/**
 * `If-Match` for a draft: absent, `*`, a list of entity tags of which those that are our revision
 * ETags are kept, or something that can never match (only weak or foreign ETags: RFC 9110
 * compares strongly).
 */
export function parseIfMatch(header: string): IfMatch {
  const value = header.trim();
  if (value === "") return { kind: "absent" };
  if (value === "*") return { kind: "any" };
  const revisions: number[] = [];
  for (const candidate of value.split(",")) {
    const match = REVISION_ETAG.exec(candidate.trim());
    if (match) revisions.push(Number(match[1]));
  }
  return revisions.length > 0 ? { kind: "revisions", revisions } : { kind: "never" };
}
