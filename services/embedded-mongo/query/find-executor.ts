/**
 * Runs a filter (+ sort, skip, limit) over a collection as seen by one reader: the
 * committed documents, overlaid with a transaction's own uncommitted writes when there
 * is one. Streams candidates from the chosen plan and stops early when the plan already
 * yields the requested order.
 */
import type { Doc } from "../bson-values.js";
import { parseSortSpec, sortDocuments, topSortedDocuments } from "../document-paths.js";
import { badValue } from "../errors.js";
import { Deadline } from "../operation-deadline.js";
import type { Collection } from "../storage/collection.js";
import { compileFilter } from "./matcher.js";
import { candidateIds, describePlan, type Plan, planQuery } from "./query-planner.js";
import { withRegexOptionsResolved } from "./regex-options.js";

/** What a reader sees of one collection. */
export interface DocSource {
  collection: Collection | undefined;
  /** A transaction's pending writes for this collection: id key -> new document, or null if deleted. */
  overlay?: Map<string, Doc | null>;
  /** Read documents as of this commit sequence (a transaction's snapshot). */
  snapshot?: number;
}

export interface FindRequest {
  filter?: Doc;
  sort?: Doc;
  skip?: number;
  /** 0 or absent: no limit. */
  limit?: number;
  hint?: unknown;
  /** Checked for every document examined and through the sort (none: no limit). */
  deadline?: Deadline;
}

export interface FindOutcome {
  docs: Doc[];
  /** Matching documents as id key / document pairs (for writes). */
  ids: string[];
  plan: Plan | undefined;
  keysExamined: number;
  docsExamined: number;
}

export function findDocuments(source: DocSource, request: FindRequest): FindOutcome {
  const deadline = request.deadline ?? Deadline.none;
  return deadline.run(() => find(source, request, deadline));
}

function find(source: DocSource, request: FindRequest, deadline: Deadline): FindOutcome {
  const filter = withRegexOptionsResolved(request.filter ?? {});
  const skip = toCount(request.skip, "skip");
  const limit = Math.abs(toCount(request.limit, "limit", true));
  let sortSpec: ReturnType<typeof parseSortSpec>;
  try {
    sortSpec = parseSortSpec(request.sort);
  } catch (error) {
    throw badValue((error as Error).message);
  }
  const matches = compileFilter(filter);
  const outcome: FindOutcome = {
    docs: [],
    ids: [],
    plan: undefined,
    keysExamined: 0,
    docsExamined: 0,
  };
  const { collection, overlay } = source;
  const hasOverlay = overlay !== undefined && overlay.size > 0;
  if (!collection && !hasOverlay) return outcome;
  const snapshot = source.snapshot ?? Number.POSITIVE_INFINITY;
  const historic =
    source.snapshot !== undefined && collection !== undefined && collection.history.size > 0;

  const needed = limit > 0 ? skip + limit : 0;
  const plan = collection
    ? planQuery(collection, { filter, sort: sortSpec, needed, hint: request.hint })
    : undefined;
  outcome.plan = plan;
  const streamInOrder =
    !hasOverlay &&
    !historic &&
    (sortSpec.length === 0 || (plan?.kind === "ixscan" && plan.providesSort));

  const stats = { keysExamined: 0 };
  const found: Array<[string, Doc]> = [];
  let skipped = 0;
  if (collection && plan) {
    for (const id of candidateIds(collection, plan, stats)) {
      deadline.tick();
      if (hasOverlay && overlay.has(id)) continue;
      const record = collection.docs.get(id);
      // Newer than the snapshot: its snapshot version (if any) comes from the history below.
      if (!record || record.version > snapshot) continue;
      const doc = record.doc;
      outcome.docsExamined++;
      if (!matches(doc)) continue;
      if (streamInOrder) {
        if (skipped < skip) {
          skipped++;
          continue;
        }
        found.push([id, doc]);
        if (limit > 0 && found.length >= limit) break;
      } else {
        found.push([id, doc]);
      }
    }
  }
  if (historic && collection) {
    for (const id of collection.history.keys()) {
      deadline.tick();
      if (hasOverlay && overlay.has(id)) continue;
      const record = collection.docs.get(id);
      if (record && record.version <= snapshot) continue;
      const doc = collection.versionAt(id, snapshot);
      if (!doc) continue;
      outcome.docsExamined++;
      if (matches(doc)) found.push([id, doc]);
    }
  }
  if (hasOverlay) {
    for (const [id, doc] of overlay) {
      deadline.tick();
      if (doc === null) continue;
      outcome.docsExamined++;
      if (matches(doc)) found.push([id, doc]);
    }
  }
  outcome.keysExamined = stats.keysExamined;
  let selected = found;
  if (!streamInOrder) {
    if (sortSpec.length > 0) {
      const byDoc = new Map(found.map(([id, doc]) => [doc, id]));
      const docs = found.map(([, doc]) => doc);
      const k = limit > 0 ? skip + limit : 0;
      const tick = () => deadline.tick();
      const sorted =
        k > 0 && k <= 1000 && docs.length > 4 * k
          ? topSortedDocuments(docs, sortSpec, k, tick)
          : sortDocuments(docs, sortSpec, tick);
      selected = sorted.map((doc) => [byDoc.get(doc)!, doc]);
    }
    selected = selected.slice(skip, limit > 0 ? skip + limit : undefined);
  }
  for (const [id, doc] of selected) {
    outcome.ids.push(id);
    outcome.docs.push(doc);
  }
  return outcome;
}

function toCount(value: unknown, name: string, allowNegative = false): number {
  if (value === undefined || value === null) return 0;
  const n = Number(value);
  if (!Number.isFinite(n) || !Number.isInteger(n)) throw badValue(`${name} must be an integer`);
  if (n < 0 && !allowNegative)
    throw badValue(`${name} value must be non-negative, but received: ${n}`);
  return n;
}

export function explainPlan(outcome: FindOutcome, nReturned: number): Doc {
  return {
    queryPlanner: { winningPlan: outcome.plan ? describePlan(outcome.plan) : { stage: "EOF" } },
    executionStats: {
      nReturned,
      totalKeysExamined: outcome.keysExamined,
      totalDocsExamined: outcome.docsExamined,
      executionSuccess: true,
      executionStages: outcome.plan ? describePlan(outcome.plan) : { stage: "EOF" },
    },
  };
}
