/**
 * Chooses how to find candidate documents for a filter: `_id` lookups, an index scan over
 * computed key intervals (optionally in the order a sort asks for), a union of index scans
 * for `$or`, or a collection scan. Costs are the number of index entries the intervals
 * cover, counted exactly from the index, so the most selective index wins.
 */
import {
  BoundSentinel,
  compareValues,
  type Doc,
  idKeyOf,
  MAX_BOUND,
  MIN_BOUND,
} from "../bson-values.js";
import type { SortSpec } from "../document-paths.js";
import { badValue } from "../errors.js";
import type { Collection } from "../storage/collection.js";
import type { CollectionIndex, IndexEntry } from "../storage/collection-index.js";
import type { Position } from "../storage/sorted-list.js";
import {
  analyzeFilter,
  type FieldBounds,
  fieldIntervals,
  type ValueInterval,
} from "./filter-bounds.js";

export interface KeyInterval {
  start: unknown[];
  end: unknown[];
  /** Keys equal to an exclusive bound ($gt / $lt) at this field are skipped. */
  exclusions?: Array<{ field: number; value: unknown }>;
}

export type Plan =
  | { kind: "collscan"; estimated: number }
  | { kind: "ids"; ids: unknown[]; estimated: number }
  | {
      kind: "ixscan";
      index: CollectionIndex;
      intervals: KeyInterval[];
      reverse: boolean;
      providesSort: boolean;
      estimated: number;
    }
  | { kind: "or"; plans: Plan[]; estimated: number };

export interface PlanRequest {
  filter: Doc;
  sort?: SortSpec;
  /** skip + limit when a limit applies (0: no limit). */
  needed?: number;
  hint?: unknown;
}

const MAX_INTERVALS = 256;
const LAST_ID = "\uffff";

export function planQuery(collection: Collection, request: PlanRequest): Plan {
  const analysis = analyzeFilter(request.filter);
  const size = collection.docs.size;
  if (request.hint !== undefined && request.hint !== null)
    return hintedPlan(collection, request, analysis);

  const idBounds = analysis.fields.get("_id");
  if (idBounds?.points && !request.sort?.length) {
    return { kind: "ids", ids: idBounds.points, estimated: idBounds.points.length };
  }

  let best: Plan = { kind: "collscan", estimated: size };
  let bestCost = size + (request.sort?.length ? size * 0.25 : 0);
  for (const index of collection.indexes.values()) {
    const plan = indexPlan(index, analysis.fields, request, false);
    if (plan?.kind !== "ixscan") continue;
    let cost = plan.estimated;
    const limited = request.needed !== undefined && request.needed > 0;
    if (
      plan.providesSort &&
      limited &&
      analysis.fullyCaptured &&
      coversAllFields(plan, analysis.fields)
    ) {
      cost = Math.min(cost, request.needed!);
    } else if (request.sort?.length && !plan.providesSort) {
      cost += plan.estimated * 0.25;
    }
    if (
      cost < bestCost ||
      (cost === bestCost && plan.providesSort && best.kind === "ixscan" && !best.providesSort)
    ) {
      best = plan;
      bestCost = cost;
    }
  }
  if (best.kind === "collscan" && analysis.or && analysis.fields.size === 0) {
    const orPlan = planOr(collection, analysis.or);
    if (orPlan && orPlan.estimated < size) return orPlan;
  }
  return best;
}

function coversAllFields(
  plan: Extract<Plan, { kind: "ixscan" }>,
  fields: Map<string, FieldBounds>,
): boolean {
  const indexFields = new Set(plan.index.fields);
  for (const [field, bounds] of fields) {
    if (!indexFields.has(field) || !bounds.exact) return false;
    const i = plan.index.fields.indexOf(field);
    if (plan.index.multikeyFields[i] && (bounds.lo !== undefined || bounds.hi !== undefined))
      return false;
  }
  return true;
}

function planOr(collection: Collection, branches: Doc[]): Plan | undefined {
  const plans: Plan[] = [];
  for (const branch of branches) {
    const plan = planQuery(collection, { filter: branch });
    if (plan.kind === "collscan") return undefined;
    plans.push(plan);
  }
  return { kind: "or", plans, estimated: plans.reduce((n, p) => n + p.estimated, 0) };
}

function hintedPlan(
  collection: Collection,
  request: PlanRequest,
  analysis: ReturnType<typeof analyzeFilter>,
): Plan {
  const hint = request.hint;
  if (typeof hint === "object" && hint !== null && "$natural" in hint) {
    return { kind: "collscan", estimated: collection.docs.size };
  }
  const index = [...collection.indexes.values()].find((i) =>
    typeof hint === "string"
      ? i.name === hint
      : JSON.stringify(i.spec.key) === JSON.stringify(hint),
  );
  if (!index) throw badValue("hint provided does not correspond to an existing index");
  return indexPlan(index, analysis.fields, request, true)!;
}

/** An index scan plan, or undefined when the index helps neither filtering nor sorting. */
function indexPlan(
  index: CollectionIndex,
  fields: Map<string, FieldBounds>,
  request: PlanRequest,
  forced: boolean,
): Plan | undefined {
  if (index.spec.partialFilterExpression && !forced) return undefined;
  const perField: ValueInterval[][] = [];
  let singlePointPrefix = 0;
  let stillPoints = true;
  for (let i = 0; i < index.fields.length; i++) {
    const bounds = fields.get(index.fields[i]);
    let intervals = bounds ? chooseIntervals(index, i, bounds) : undefined;
    if (
      intervals &&
      index.multikeyFields[i] &&
      bounds &&
      bounds.lo !== undefined &&
      bounds.hi !== undefined
    ) {
      // Different array elements may satisfy each side: only one side bounds the scan.
      intervals = fieldIntervals({ lo: bounds.lo, loExclusive: bounds.loExclusive, exact: false });
    }
    if (!intervals) break;
    perField.push(intervals);
    const isPoint = intervals.length === 1 && intervals[0].lo === intervals[0].hi;
    if (stillPoints && isPoint) singlePointPrefix++;
    const allPoints = intervals.every((iv) => iv.lo === iv.hi);
    if (!allPoints) break;
    if (!isPoint) stillPoints = false;
  }
  if (index.spec.sparse && !forced) {
    const first = perField[0];
    if (
      !first ||
      first.some((iv) => iv.lo === null || iv.hi === null || iv.lo instanceof BoundSentinel)
    ) {
      return undefined;
    }
  }
  const sort = sortDirection(index, request.sort, singlePointPrefix);
  const combos = cartesian(perField);
  if (perField.length === 0 && sort === undefined && !forced) return undefined;
  if (combos.length > MAX_INTERVALS) return undefined;
  const intervals = combos.map((combo) => toKeyInterval(index, combo));
  const providesSort = sort !== undefined && intervals.length <= 1;
  const estimated = intervals.reduce((n, iv) => n + countInterval(index, iv), 0);
  return {
    kind: "ixscan",
    index,
    intervals,
    reverse: providesSort ? sort! < 0 : false,
    providesSort: providesSort || !request.sort?.length,
    estimated,
  };
}

function chooseIntervals(
  index: CollectionIndex,
  field: number,
  bounds: FieldBounds,
): ValueInterval[] | undefined {
  if (bounds.points) return fieldIntervals(bounds);
  if (bounds.allOf) {
    // Any one `$all` value bounds the scan: take the rarest.
    let best: unknown;
    let bestCount = Number.POSITIVE_INFINITY;
    for (const value of bounds.allOf) {
      if (field > 0) {
        best = value;
        break;
      }
      const n = countInterval(index, toKeyInterval(index, [{ lo: value, hi: value }]));
      if (n < bestCount) {
        bestCount = n;
        best = value;
      }
    }
    return fieldIntervals(bounds, best ?? null);
  }
  return fieldIntervals(bounds);
}

/** +1 / -1 when scanning the index forwards / backwards yields the requested sort. */
function sortDirection(
  index: CollectionIndex,
  sort: SortSpec | undefined,
  pointPrefix: number,
): number | undefined {
  if (!sort || sort.length === 0) return undefined;
  let position = pointPrefix;
  let direction = 0;
  for (const [path, dir] of sort) {
    const field = path.join(".");
    const at = index.fields.indexOf(field);
    if (at >= 0 && at < pointPrefix) continue;
    if (at !== position || index.multikeyFields[at]) return undefined;
    const d = dir * index.directions[at];
    if (direction === 0) direction = d;
    else if (direction !== d) return undefined;
    position++;
  }
  return direction === 0 ? 1 : direction;
}

function cartesian(perField: ValueInterval[][]): ValueInterval[][] {
  let combos: ValueInterval[][] = [[]];
  for (const intervals of perField) {
    const next: ValueInterval[][] = [];
    for (const combo of combos) for (const iv of intervals) next.push([...combo, iv]);
    combos = next;
    if (combos.length > MAX_INTERVALS) return combos;
  }
  return combos;
}

function toKeyInterval(index: CollectionIndex, combo: ValueInterval[]): KeyInterval {
  const start: unknown[] = [];
  const end: unknown[] = [];
  const exclusions: Array<{ field: number; value: unknown }> = [];
  for (let i = 0; i < index.fields.length; i++) {
    const dir = index.directions[i];
    const iv: ValueInterval = combo[i] ?? { lo: MIN_BOUND, hi: MAX_BOUND };
    start.push(dir > 0 ? iv.lo : iv.hi);
    end.push(dir > 0 ? iv.hi : iv.lo);
    if (iv.loExclusive) exclusions.push({ field: i, value: iv.lo });
    if (iv.hiExclusive) exclusions.push({ field: i, value: iv.hi });
  }
  return exclusions.length ? { start, end, exclusions } : { start, end };
}

export function intervalPositions(index: CollectionIndex, iv: KeyInterval): [Position, Position] {
  return [
    index.entries.lowerBound({ key: iv.start, id: "" }),
    index.entries.lowerBound({ key: iv.end, id: LAST_ID }),
  ];
}

function countInterval(index: CollectionIndex, iv: KeyInterval): number {
  const [from, to] = intervalPositions(index, iv);
  return index.entries.countBetween(from, to);
}

export interface ScanStats {
  keysExamined: number;
}

/** Candidate document ids for a plan, each at most once, in index order for sorted scans. */
export function* candidateIds(
  collection: Collection,
  plan: Plan,
  stats: ScanStats,
): Generator<string> {
  switch (plan.kind) {
    case "collscan":
      for (const key of collection.docs.keys()) yield key;
      return;
    case "ids": {
      const seen = new Set<string>();
      for (const id of plan.ids) {
        const key = idKeyOf(id);
        stats.keysExamined++;
        if (!seen.has(key) && collection.docs.has(key)) {
          seen.add(key);
          yield key;
        }
      }
      return;
    }
    case "ixscan": {
      const dedupe = plan.index.isMultikey || plan.intervals.length > 1;
      const seen = dedupe ? new Set<string>() : undefined;
      for (const iv of plan.intervals) {
        const [from, to] = intervalPositions(plan.index, iv);
        const exclusions = iv.exclusions;
        for (const entry of plan.index.entries.range(
          from,
          to,
          plan.reverse,
        ) as Generator<IndexEntry>) {
          stats.keysExamined++;
          if (exclusions?.some((x) => compareValues(entry.key[x.field], x.value) === 0)) continue;
          if (seen) {
            if (seen.has(entry.id)) continue;
            seen.add(entry.id);
          }
          yield entry.id;
        }
      }
      return;
    }
    case "or": {
      const seen = new Set<string>();
      for (const sub of plan.plans) {
        for (const id of candidateIds(collection, sub, stats)) {
          if (seen.has(id)) continue;
          seen.add(id);
          yield id;
        }
      }
      return;
    }
  }
}

export function describePlan(plan: Plan): Doc {
  switch (plan.kind) {
    case "collscan":
      return { stage: "COLLSCAN" };
    case "ids":
      return { stage: "IDHACK" };
    case "ixscan":
      return {
        stage: "FETCH",
        inputStage: {
          stage: "IXSCAN",
          indexName: plan.index.name,
          keyPattern: { ...plan.index.spec.key },
          isMultiKey: plan.index.isMultikey,
          direction: plan.reverse ? "backward" : "forward",
        },
      };
    case "or":
      return {
        stage: "FETCH",
        inputStage: { stage: "OR", inputStages: plan.plans.map(describePlan) },
      };
  }
}
