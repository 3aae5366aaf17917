/**
 * Cross-validation folds: fixed by the recordings' ids and a seed, balanced within each group.
 * Each group's recordings are ordered by a hash of the seed and their id and dealt in turn, the
 * dealing carried on from group to group, so folds differ in size by one at most and every fold
 * holds its share of every group. The same ids and seed give the same folds on any machine,
 * whatever order the recordings come in.
 */
import { fnv1a } from "./scoring.js";

export function assignFolds(
  items: readonly { readonly id: string; readonly group?: string }[],
  folds: number,
  seed: number,
): number[] {
  const k = Math.max(1, Math.min(folds, items.length));
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const g = item.group ?? "";
    const members = groups.get(g);
    if (members) members.push(i);
    else groups.set(g, [i]);
  });
  const out = new Array<number>(items.length).fill(0);
  const key = (i: number) => fnv1a(`${seed}:${items[i].id}`);
  let dealt = 0;
  for (const g of [...groups.keys()].sort()) {
    const ordered = groups
      .get(g)!
      .sort((a, b) => key(a) - key(b) || (items[a].id < items[b].id ? -1 : 1));
    for (const i of ordered) out[i] = dealt++ % k;
  }
  return out;
}
