/**
 * The MoveSpecs opened or created in this browser, per project: the public API lists only the
 * public catalogue, so the Studio remembers the project's own ones itself. Ids and names only
 * (never a credential), in localStorage so that they survive a reload.
 */
export interface RecentEntry {
  readonly id: string;
  readonly name: string;
}

const MAX_RECENT = 30;

function key(projectId: string): string {
  return `mds-studio:recent:${projectId}`;
}

export function recentMoveSpecs(projectId: string): RecentEntry[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(key(projectId)) ?? "[]") as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is RecentEntry => !!e && typeof e.id === "string" && typeof e.name === "string",
    );
  } catch {
    return [];
  }
}

export function rememberMoveSpec(projectId: string, entry: RecentEntry): RecentEntry[] {
  const list = [entry, ...recentMoveSpecs(projectId).filter((e) => e.id !== entry.id)].slice(
    0,
    MAX_RECENT,
  );
  try {
    localStorage.setItem(key(projectId), JSON.stringify(list));
  } catch {
    // Storage full or disabled (private mode): the list just does not survive a reload.
  }
  return list;
}

export function forgetMoveSpec(projectId: string, id: string): RecentEntry[] {
  const list = recentMoveSpecs(projectId).filter((e) => e.id !== id);
  try {
    localStorage.setItem(key(projectId), JSON.stringify(list));
  } catch {
    // As above.
  }
  return list;
}
