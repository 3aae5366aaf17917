/**
 * Writes: insert, update, delete and findAndModify. Statements run one by one; a failed
 * statement becomes a `writeErrors` entry (reply still `ok: 1`), and an ordered batch
 * stops at the first one. Inside a transaction a write conflict fails the whole command
 * (with the TransientTransactionError label) so drivers retry the transaction.
 */
import { ObjectId } from "bson";
import { type Doc, documentProblem, idKeyOf, isPlainObject } from "../bson-values.js";
import { badValue, MongoCommandError, toCommandError } from "../errors.js";
import { findDocuments } from "../query/find-executor.js";
import { projectDocuments } from "../query/matcher.js";
import {
  applyUpdate,
  buildUpsertDocument,
  isReplacement,
  type UpdateSpec,
  validateUpdate,
} from "../query/update-document.js";
import { LockWait } from "../sessions/lock-table.js";
import type { Collection } from "../storage/collection.js";
import {
  type CommandContext,
  type CommandHandler,
  collectionName,
  optionalDoc,
  rejectCollation,
} from "./command-context.js";

const LOCK_WAIT_LIMIT_MS = 60_000;

/**
 * Runs a statement, waiting and retrying while a transaction holds a document it needs
 * (at most the command's maxTimeMS, else the transaction lifetime limit). The statement's
 * work itself is bounded by the command's deadline, whose server limit restarts after a wait.
 */
async function withLockRetry<T>(ctx: CommandContext, statement: () => T): Promise<T> {
  const maxTimeMS = ctx.deadline.maxTimeMS;
  const deadline = Date.now() + (maxTimeMS > 0 ? maxTimeMS : LOCK_WAIT_LIMIT_MS);
  for (;;) {
    try {
      return statement();
    } catch (error) {
      if (!(error instanceof LockWait)) throw error;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new MongoCommandError(
          "MaxTimeMSExpired",
          "operation exceeded time limit waiting for a transaction's lock",
        );
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        error.released,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, left);
        }),
      ]);
      clearTimeout(timer);
      ctx.deadline.resume();
    }
  }
}

function statementError(ctx: CommandContext, index: number, error: unknown): Doc {
  const e = toCommandError(error);
  // Inside a transaction a write conflict aborts the transaction: a top-level error.
  if (ctx.access.txn && e.code === 112) throw e;
  // Running out of time ends the whole command, as in mongod.
  if (e.code === 50) throw e;
  return { index, code: e.code, errmsg: e.message, ...e.extra };
}

export function prepareForInsert(raw: unknown): Doc {
  if (!isPlainObject(raw)) throw badValue("document to insert must be an object");
  const problem = documentProblem(raw);
  if (problem !== undefined) throw badValue(problem);
  const id = raw._id === undefined ? new ObjectId() : raw._id;
  if (Array.isArray(id) || id instanceof RegExp) {
    throw new MongoCommandError(
      "InvalidIdField",
      `The '_id' value cannot be of type ${Array.isArray(id) ? "array" : "regex"}`,
    );
  }
  if (raw._id !== undefined && Object.keys(raw)[0] === "_id") return raw;
  const doc: Doc = { _id: id };
  for (const [key, value] of Object.entries(raw)) if (key !== "_id") doc[key] = value;
  return doc;
}

function writableCollection(ctx: CommandContext, name: string): Collection {
  return ctx.engine.ensureCollection(ctx.db, name);
}

const insert: CommandHandler = async (ctx) => {
  const name = collectionName(ctx, "insert");
  const documents = ctx.body.documents;
  if (!Array.isArray(documents) || documents.length === 0) {
    throw new MongoCommandError(
      "InvalidLength",
      "Write batch sizes must be between 1 and 100000. Got 0 operations.",
    );
  }
  const ordered = ctx.body.ordered !== false;
  const collection = writableCollection(ctx, name);
  const writeErrors: Doc[] = [];
  let n = 0;
  for (let i = 0; i < documents.length; i++) {
    try {
      const doc = prepareForInsert(documents[i]);
      const idKey = idKeyOf(doc._id);
      await withLockRetry(ctx, () => {
        ctx.access.checkWritable(collection, [idKey]);
        ctx.access.insert(collection, doc);
      });
      n++;
    } catch (error) {
      writeErrors.push(statementError(ctx, i, error));
      if (ordered) break;
    }
  }
  return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};

interface UpdateStatement {
  q: Doc;
  u: UpdateSpec;
  upsert: boolean;
  multi: boolean;
  arrayFilters?: Doc[];
  hint?: unknown;
  sort?: Doc;
}

function parseUpdateStatement(raw: unknown): UpdateStatement {
  if (!isPlainObject(raw)) throw badValue("update statement must be an object");
  const q = raw.q ?? {};
  if (!isPlainObject(q))
    throw new MongoCommandError("TypeMismatch", "update filter 'q' must be an object");
  validateUpdate(raw.u);
  rejectCollation(raw.collation);
  const multi = Boolean(raw.multi);
  if (multi && isReplacement(raw.u)) {
    throw new MongoCommandError(
      "FailedToParse",
      "multi update is not supported for replacement-style update",
    );
  }
  if (raw.arrayFilters !== undefined && !Array.isArray(raw.arrayFilters)) {
    throw badValue("arrayFilters must be an array");
  }
  return {
    q,
    u: raw.u,
    upsert: Boolean(raw.upsert),
    multi,
    arrayFilters: raw.arrayFilters as Doc[] | undefined,
    hint: raw.hint,
    sort: isPlainObject(raw.sort) ? raw.sort : undefined,
  };
}

const update: CommandHandler = async (ctx) => {
  const name = collectionName(ctx, "update");
  const updates = ctx.body.updates;
  if (!Array.isArray(updates) || updates.length === 0) {
    throw new MongoCommandError(
      "InvalidLength",
      "Write batch sizes must be between 1 and 100000. Got 0 operations.",
    );
  }
  const ordered = ctx.body.ordered !== false;
  const writeErrors: Doc[] = [];
  const upserted: Doc[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < updates.length; i++) {
    try {
      const statement = parseUpdateStatement(updates[i]);
      const result = await withLockRetry(ctx, () => runUpdate(ctx, name, statement));
      n += result.n;
      nModified += result.nModified;
      if (result.upsertedId !== undefined) upserted.push({ index: i, _id: result.upsertedId });
    } catch (error) {
      writeErrors.push(statementError(ctx, i, error));
      if (ordered) break;
    }
  }
  const reply: Doc = { n, nModified };
  if (upserted.length) reply.upserted = upserted;
  if (writeErrors.length) reply.writeErrors = writeErrors;
  reply.ok = 1;
  return reply;
};

function runUpdate(ctx: CommandContext, name: string, s: UpdateStatement) {
  const source = ctx.access.source(ctx.db, name);
  const outcome = findDocuments(source, {
    filter: s.q,
    limit: s.multi ? 0 : 1,
    hint: s.hint,
    sort: s.sort,
    deadline: ctx.deadline,
  });
  if (outcome.ids.length === 0) {
    if (!s.upsert) return { n: 0, nModified: 0, upsertedId: undefined };
    const collection = writableCollection(ctx, name);
    const doc = buildUpsertDocument(s.q, s.u, s.arrayFilters);
    ctx.access.checkWritable(collection, [idKeyOf(doc._id)]);
    ctx.access.insert(collection, doc);
    return { n: 1, nModified: 0, upsertedId: doc._id };
  }
  const collection = source.collection ?? writableCollection(ctx, name);
  ctx.access.checkWritable(collection, outcome.ids);
  let nModified = 0;
  for (let i = 0; i < outcome.ids.length; i++) {
    const result = applyUpdate(outcome.docs[i], s.u, { filter: s.q, arrayFilters: s.arrayFilters });
    if (!result.modified) continue;
    ctx.access.replace(collection, outcome.ids[i], result.doc);
    nModified++;
  }
  return { n: outcome.ids.length, nModified, upsertedId: undefined };
}

const remove: CommandHandler = async (ctx) => {
  const name = collectionName(ctx, "delete");
  const deletes = ctx.body.deletes;
  if (!Array.isArray(deletes) || deletes.length === 0) {
    throw new MongoCommandError(
      "InvalidLength",
      "Write batch sizes must be between 1 and 100000. Got 0 operations.",
    );
  }
  const ordered = ctx.body.ordered !== false;
  const writeErrors: Doc[] = [];
  let n = 0;
  for (let i = 0; i < deletes.length; i++) {
    try {
      const raw = deletes[i];
      if (!isPlainObject(raw)) throw badValue("delete statement must be an object");
      rejectCollation(raw.collation);
      const limit = Number(raw.limit ?? 0);
      if (limit !== 0 && limit !== 1)
        throw badValue(`The limit field in delete objects must be 0 or 1. Got ${limit}`);
      const q = (raw.q ?? {}) as Doc;
      n += await withLockRetry(ctx, () => {
        const source = ctx.access.source(ctx.db, name);
        if (!source.collection) return 0;
        const outcome = findDocuments(source, {
          filter: q,
          limit,
          hint: raw.hint,
          deadline: ctx.deadline,
        });
        ctx.access.checkWritable(source.collection, outcome.ids);
        for (const id of outcome.ids) ctx.access.remove(source.collection, id);
        return outcome.ids.length;
      });
    } catch (error) {
      writeErrors.push(statementError(ctx, i, error));
      if (ordered) break;
    }
  }
  return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};

const findAndModify: CommandHandler = async (ctx) => {
  const name = collectionName(ctx, "findAndModify");
  rejectCollation(ctx.body.collation);
  const query = optionalDoc(ctx, "query") ?? {};
  const sort = optionalDoc(ctx, "sort");
  const removing = Boolean(ctx.body.remove);
  const updateSpec = ctx.body.update;
  if (removing && updateSpec !== undefined) {
    throw new MongoCommandError("FailedToParse", "Cannot specify both an update and remove=true");
  }
  if (!removing && updateSpec === undefined) {
    throw new MongoCommandError(
      "FailedToParse",
      "Either an update or remove=true must be specified",
    );
  }
  if (!removing) validateUpdate(updateSpec);
  const returnNew = Boolean(ctx.body.new);
  const upsert = Boolean(ctx.body.upsert);
  const arrayFilters = ctx.body.arrayFilters as Doc[] | undefined;
  const project = (doc: Doc | null): Doc | null =>
    doc ? projectDocuments([doc], ctx.body.fields, query)[0] : null;

  return withLockRetry(ctx, () => {
    const source = ctx.access.source(ctx.db, name);
    const outcome = findDocuments(source, {
      filter: query,
      sort,
      limit: 1,
      hint: ctx.body.hint,
      deadline: ctx.deadline,
    });
    const found = outcome.docs[0];
    const id = outcome.ids[0];
    // The answer is projected before anything is written: a projection that cannot be applied
    // fails the command with nothing changed.
    if (found && source.collection) {
      ctx.access.checkWritable(source.collection, [id]);
      const before = project(found);
      if (removing) {
        ctx.access.remove(source.collection, id);
        return { lastErrorObject: { n: 1 }, value: before, ok: 1 };
      }
      const result = applyUpdate(found, updateSpec as UpdateSpec, { filter: query, arrayFilters });
      const after = returnNew ? project(result.doc) : before;
      if (result.modified) ctx.access.replace(source.collection, id, result.doc);
      return {
        lastErrorObject: { n: 1, updatedExisting: true },
        value: after,
        ok: 1,
      };
    }
    if (removing) return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
    if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
    const collection = writableCollection(ctx, name);
    const doc = buildUpsertDocument(query, updateSpec as UpdateSpec, arrayFilters);
    ctx.access.checkWritable(collection, [idKeyOf(doc._id)]);
    const inserted = project(doc);
    ctx.access.insert(collection, doc);
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id },
      value: returnNew ? inserted : null,
      ok: 1,
    };
  });
};

export const writeCommands: Record<string, CommandHandler> = {
  insert,
  update,
  delete: remove,
  findAndModify,
  findandmodify: findAndModify,
};

export const WRITE_COMMANDS = new Set([
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
]);
