/**
 * Who may see and change a MoveSpec (contract: "A resource that exists but is private to another
 * project answers exactly like one that does not exist").
 */
export type VisibilityName = "private" | "public" | "delisted";

export interface Owned {
  readonly project_id: string;
  readonly visibility: VisibilityName;
}

export type Access = "owner" | "reader" | "none";

/** `owner`: the caller's project; `reader`: anyone may read it (public); `none`: it is hidden. */
export function accessOf(movespec: Owned, callerProjectId: string): Access {
  if (callerProjectId !== "" && movespec.project_id === callerProjectId) return "owner";
  if (movespec.visibility === "public") return "reader";
  return "none";
}
