/**
 * Queries: find (with getMore / killCursors), count, distinct, aggregate and explain. Each runs
 * within its command's deadline (`maxTimeMS`, and the server's limit): the whole result is
 * computed by find / aggregate, getMore only hands it out (and projects it).
 */
import { compareValues, type Doc } from "../bson-values.js";
import { valuesAtPath } from "../document-paths.js";
import { badValue, MongoCommandError } from "../errors.js";
import { runPipeline } from "../query/aggregate-pipeline.js";
import { explainPlan, findDocuments } from "../query/find-executor.js";
import { isEmptyProjection, projectDocuments } from "../query/matcher.js";
import {
  type CommandContext,
  type CommandHandler,
  collectionName,
  optionalDoc,
  rejectCollation,
} from "./command-context.js";

const UNSUPPORTED_FIND_OPTIONS = [
  "tailable",
  "awaitData",
  "min",
  "max",
  "returnKey",
  "showRecordId",
  "oplogReplay",
];

function runFind(ctx: CommandContext) {
  const name = collectionName(ctx, "find");
  for (const option of UNSUPPORTED_FIND_OPTIONS) {
    if (ctx.body[option]) {
      throw new MongoCommandError(
        "BadValue",
        `find option '${option}' is not supported by the embedded server`,
      );
    }
  }
  rejectCollation(ctx.body.collation);
  const filter = optionalDoc(ctx, "filter") ?? {};
  const outcome = findDocuments(ctx.access.source(ctx.db, name), {
    filter,
    sort: optionalDoc(ctx, "sort"),
    skip: ctx.body.skip as number | undefined,
    limit: ctx.body.limit as number | undefined,
    hint: ctx.body.hint,
    deadline: ctx.deadline,
  });
  const projection = ctx.body.projection;
  const transform = isEmptyProjection(projection)
    ? undefined
    : (docs: Doc[]) => projectDocuments(docs, projection, filter);
  return { name, outcome, transform };
}

const find: CommandHandler = (ctx) => {
  const { name, outcome, transform } = runFind(ctx);
  const cursor = ctx.deadline.run(() =>
    ctx.cursors.open(`${ctx.db}.${name}`, outcome.docs, ctx.body.batchSize, {
      sessionKey: ctx.session?.key,
      single: Boolean(ctx.body.singleBatch),
      transform,
    }),
  );
  return { cursor, ok: 1 };
};

const getMore: CommandHandler = (ctx) => {
  const id = Number(ctx.body.getMore);
  const collection = ctx.body.collection;
  if (typeof collection !== "string") throw badValue("getMore requires a 'collection' name");
  const cursor = ctx.deadline.run(() =>
    ctx.cursors.getMore(id, `${ctx.db}.${collection}`, ctx.body.batchSize),
  );
  return { cursor, ok: 1 };
};

const killCursors: CommandHandler = (ctx) => {
  const ids = ctx.body.cursors;
  if (!Array.isArray(ids)) throw badValue("killCursors requires a 'cursors' array");
  const killed: unknown[] = [];
  const notFound: unknown[] = [];
  for (const id of ids) (ctx.cursors.kill(Number(id)) ? killed : notFound).push(id);
  return {
    cursorsKilled: killed,
    cursorsNotFound: notFound,
    cursorsAlive: [],
    cursorsUnknown: [],
    ok: 1,
  };
};

function runCount(ctx: CommandContext) {
  const name = collectionName(ctx, "count");
  rejectCollation(ctx.body.collation);
  const query = optionalDoc(ctx, "query") ?? {};
  const source = ctx.access.source(ctx.db, name);
  const skip = Number(ctx.body.skip ?? 0);
  const limit = Math.abs(Number(ctx.body.limit ?? 0));
  if (Object.keys(query).length === 0 && !source.overlay?.size && ctx.body.hint === undefined) {
    const total = source.collection?.docs.size ?? 0;
    const n = Math.max(0, total - skip);
    return { n: limit > 0 ? Math.min(n, limit) : n, outcome: undefined };
  }
  const outcome = findDocuments(source, {
    filter: query,
    skip,
    limit,
    hint: ctx.body.hint,
    deadline: ctx.deadline,
  });
  return { n: outcome.docs.length, outcome };
}

const count: CommandHandler = (ctx) => ({ n: runCount(ctx).n, ok: 1 });

function runDistinct(ctx: CommandContext) {
  const name = collectionName(ctx, "distinct");
  rejectCollation(ctx.body.collation);
  const key = ctx.body.key;
  if (typeof key !== "string" || key.length === 0)
    throw badValue("distinct requires a 'key' string");
  const outcome = findDocuments(ctx.access.source(ctx.db, name), {
    filter: optionalDoc(ctx, "query") ?? {},
    deadline: ctx.deadline,
  });
  const path = key.split(".");
  const values: unknown[] = [];
  for (const doc of outcome.docs) {
    ctx.deadline.tick();
    for (const v of valuesAtPath(doc, path)) if (v !== undefined) values.push(v);
  }
  values.sort((a, b) => {
    ctx.deadline.tick();
    return compareValues(a, b);
  });
  const distinctValues = values.filter((v, i) => i === 0 || compareValues(v, values[i - 1]) !== 0);
  return { values: distinctValues, outcome };
}

const distinct: CommandHandler = (ctx) => ({ values: runDistinct(ctx).values, ok: 1 });

function runAggregate(ctx: CommandContext) {
  const target = ctx.body.aggregate;
  if (typeof target !== "string") {
    throw new MongoCommandError(
      "CommandNotSupported",
      "database-level aggregation ({aggregate: 1}) is not supported by the embedded server",
    );
  }
  const name = collectionName(ctx, "aggregate");
  rejectCollation(ctx.body.collation);
  if (ctx.body.cursor === undefined && !ctx.body.explain) {
    throw new MongoCommandError(
      "FailedToParse",
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  const resolve = (other: string): Doc[] =>
    findDocuments(ctx.access.source(ctx.db, other), { deadline: ctx.deadline }).docs;
  const source = ctx.access.source(ctx.db, name);
  return { name, ...runPipeline(source, ctx.body.pipeline, resolve, ctx.deadline) };
}

const aggregate: CommandHandler = (ctx) => {
  const { name, docs, pushdown } = runAggregate(ctx);
  if (ctx.body.explain) return { ...explainPlan(pushdown, docs.length), ok: 1 };
  const cursorOptions = optionalDoc(ctx, "cursor") ?? {};
  return {
    cursor: ctx.deadline.run(() =>
      ctx.cursors.open(`${ctx.db}.${name}`, docs, cursorOptions.batchSize, {
        sessionKey: ctx.session?.key,
      }),
    ),
    ok: 1,
  };
};

/** explain for find, count, distinct and aggregate: the plan and how much it examined. */
const explain: CommandHandler = (ctx) => {
  const inner = optionalDoc(ctx, "explain");
  if (!inner) throw badValue("explain requires a command document");
  const commandName = Object.keys(inner)[0];
  const innerCtx: CommandContext = { ...ctx, body: inner };
  switch (commandName) {
    case "find": {
      const { outcome } = runFind(innerCtx);
      return { ...explainPlan(outcome, outcome.docs.length), command: inner, ok: 1 };
    }
    case "count": {
      const { n, outcome } = runCount(innerCtx);
      if (!outcome)
        return {
          queryPlanner: { winningPlan: { stage: "COUNT" } },
          executionStats: { nReturned: n, totalKeysExamined: 0, totalDocsExamined: 0 },
          ok: 1,
        };
      return { ...explainPlan(outcome, n), ok: 1 };
    }
    case "distinct": {
      const { values, outcome } = runDistinct(innerCtx);
      return { ...explainPlan(outcome, values.length), ok: 1 };
    }
    case "aggregate": {
      const { docs, pushdown } = runAggregate({ ...innerCtx, body: { ...inner, explain: true } });
      return { ...explainPlan(pushdown, docs.length), ok: 1 };
    }
    default:
      throw new MongoCommandError(
        "CommandNotSupported",
        `explain of '${commandName}' is not supported by the embedded server`,
      );
  }
};

export const readCommands: Record<string, CommandHandler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct,
  aggregate,
  explain,
};
