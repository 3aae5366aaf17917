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
  | { kind: "revision"; revision: number }
  | { kind: "never" };

/**
 * `If-Match` for a draft: absent, `*`, one of our revision ETags, or something that can never
 * match (a weak or foreign ETag: RFC 9110 compares strongly).
 */
export function parseIfMatch(header: string): IfMatch {
  const value = header.trim();
  if (value === "") return { kind: "absent" };
  if (value === "*") return { kind: "any" };
  for (const candidate of value.split(",")) {
    const match = /^"r(\d{1,9})"$/.exec(candidate.trim());
    if (match) return { kind: "revision", revision: Number(match[1]) };
  }
  return { kind: "never" };
}
