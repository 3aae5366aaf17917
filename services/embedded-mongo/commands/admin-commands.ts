/**
 * Collections and indexes: create, drop, dropDatabase, listCollections, createIndexes,
 * listIndexes, dropIndexes.
 */
import { type Doc, isPlainObject } from "../bson-values.js";
import { badValue, MongoCommandError } from "../errors.js";
import { compileFilter } from "../query/matcher.js";
import { withRegexOptionsResolved } from "../query/regex-options.js";
import type { Collection } from "../storage/collection.js";
import { normalizeIndexSpec } from "../storage/collection-index.js";
import { type CommandContext, type CommandHandler, collectionName } from "./command-context.js";

const CREATE_OPTIONS = new Set([
  "create",
  "writeConcern",
  "comment",
  "lsid",
  "txnNumber",
  "$db",
  "$clusterTime",
  "$readPreference",
  "autocommit",
  "startTransaction",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
]);

const create: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "create");
  for (const option of Object.keys(ctx.body)) {
    if (!CREATE_OPTIONS.has(option)) {
      throw new MongoCommandError(
        "CommandNotSupported",
        `create option '${option}' is not supported by the embedded server`,
      );
    }
  }
  ctx.engine.createCollection(ctx.db, name);
  return { ok: 1 };
};

function requireCollection(ctx: CommandContext, name: string): Collection {
  const collection = ctx.engine.getCollection(ctx.db, name);
  if (!collection)
    throw new MongoCommandError("NamespaceNotFound", `ns does not exist: ${ctx.db}.${name}`);
  return collection;
}

const drop: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "drop");
  const collection = ctx.engine.getCollection(ctx.db, name);
  if (!collection) return { ok: 1 };
  const nIndexesWas = collection.indexes.size;
  ctx.engine.dropCollection(collection);
  return { nIndexesWas, ns: collection.ns, ok: 1 };
};

const dropDatabase: CommandHandler = (ctx) => {
  ctx.engine.dropDatabase(ctx.db);
  return { dropped: ctx.db, ok: 1 };
};

function collectionInfo(collection: Collection): Doc {
  return {
    name: collection.name,
    type: "collection",
    options: { ...collection.options },
    info: { readOnly: false, uuid: collection.uuid },
    idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
  };
}

const listCollections: CommandHandler = (ctx) => {
  const filter = compileFilter(withRegexOptionsResolved(ctx.body.filter ?? {}));
  const nameOnly = Boolean(ctx.body.nameOnly);
  const infos = ctx.deadline.run(() =>
    ctx.engine
      .collectionsOf(ctx.db)
      .map(collectionInfo)
      .filter((info) => filter(info))
      .map((info) => (nameOnly ? { name: info.name, type: info.type } : info)),
  );
  const cursor = ctx.cursors.open(
    `${ctx.db}.$cmd.listCollections`,
    infos,
    isPlainObject(ctx.body.cursor) ? ctx.body.cursor.batchSize : undefined,
  );
  return { cursor, ok: 1 };
};

const createIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "createIndexes");
  const specs = ctx.body.indexes;
  if (!Array.isArray(specs) || specs.length === 0) {
    throw badValue("Must specify at least one index to create");
  }
  const normalized = specs.map((raw) => {
    if (!isPlainObject(raw)) throw badValue("index specification must be an object");
    return normalizeIndexSpec(raw);
  });
  const existed = ctx.engine.getCollection(ctx.db, name);
  const collection = existed ?? ctx.engine.createCollection(ctx.db, name);
  const numIndexesBefore = collection.indexes.size;
  let created = 0;
  for (const spec of normalized) if (ctx.engine.createIndex(collection, spec)) created++;
  const reply: Doc = {
    numIndexesBefore,
    numIndexesAfter: collection.indexes.size,
    createdCollectionAutomatically: !existed,
  };
  if (created === 0) reply.note = "all indexes already exist";
  reply.ok = 1;
  return reply;
};

const listIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "listIndexes");
  const collection = requireCollection(ctx, name);
  const specs = [...collection.indexes.values()].map((index) => index.describe());
  const cursor = ctx.cursors.open(
    `${ctx.db}.${name}`,
    specs,
    isPlainObject(ctx.body.cursor) ? ctx.body.cursor.batchSize : undefined,
  );
  return { cursor, ok: 1 };
};

const dropIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "dropIndexes");
  const collection = requireCollection(ctx, name);
  const nIndexesWas = collection.indexes.size;
  const target = ctx.body.index;
  let names: string[];
  if (target === "*") {
    names = collection.secondaryIndexes().map((i) => i.name);
  } else if (typeof target === "string") {
    names = [target];
  } else if (Array.isArray(target)) {
    names = target.map(String);
  } else if (isPlainObject(target)) {
    const pattern = JSON.stringify(target);
    const match = [...collection.indexes.values()].find(
      (i) => JSON.stringify(i.spec.key) === pattern,
    );
    if (!match) {
      throw new MongoCommandError("IndexNotFound", `can't find index with key: ${pattern}`);
    }
    names = [match.name];
  } else {
    throw badValue("dropIndexes requires 'index' (a name, names, a key pattern or '*')");
  }
  for (const indexName of names) {
    if (!collection.indexes.has(indexName)) {
      throw new MongoCommandError("IndexNotFound", `index not found with name [${indexName}]`);
    }
  }
  for (const indexName of names) ctx.engine.dropIndex(collection, indexName);
  return { nIndexesWas, ok: 1 };
};

const collStats: CommandHandler = (ctx) => {
  const name = collectionName(ctx, "collStats");
  const collection = requireCollection(ctx, name);
  return {
    ns: collection.ns,
    count: collection.docs.size,
    nindexes: collection.indexes.size,
    indexNames: [...collection.indexes.keys()],
    ok: 1,
  };
};

export const adminCommands: Record<string, CommandHandler> = {
  create,
  drop,
  dropDatabase,
  listCollections,
  createIndexes,
  listIndexes,
  dropIndexes,
  collStats,
};
