/**
 * Handshake, server information and session bookkeeping commands. The server presents
 * itself as the primary of a single-node replica set, like production.
 */
import { Long, ObjectId } from "bson";
import type { Doc } from "../bson-values.js";
import { badValue } from "../errors.js";
import { negotiateAuthentication } from "./auth-commands.js";
import type { CommandContext, CommandHandler } from "./command-context.js";

export const MIN_WIRE_VERSION = 0;
export const MAX_WIRE_VERSION = 21;
export const SERVER_VERSION = "7.0.0";
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");

export function helloReply(
  ctx: Pick<CommandContext, "identity" | "connectionId">,
  legacy: boolean,
): Doc {
  const { address, replicaSetName } = ctx.identity;
  const now = new Date();
  const reply: Doc = {
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    helloOk: true,
    secondary: false,
    setName: replicaSetName,
    setVersion: 1,
    hosts: [address],
    primary: address,
    me: address,
    electionId: ELECTION_ID,
    lastWrite: { lastWriteDate: now, majorityWriteDate: now },
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: now,
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: MIN_WIRE_VERSION,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
  return reply;
}

const hello: CommandHandler = (ctx) => negotiateAuthentication(ctx, helloReply(ctx, false));
const isMaster: CommandHandler = (ctx) => negotiateAuthentication(ctx, helloReply(ctx, true));

const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: "embedded",
  versionArray: [7, 0, 0, 0],
  bits: 64,
  maxBsonObjectSize: 16 * 1024 * 1024,
  storageEngines: ["embedded"],
  javascriptEngine: "none",
  modules: [],
  embedded: true,
  ok: 1,
});

const listDatabases: CommandHandler = (ctx) => {
  const nameOnly = Boolean(ctx.body.nameOnly);
  const databases = ctx.engine.databaseNames().map((name) => {
    const docs = ctx.engine.collectionsOf(name).reduce((n, c) => n + c.docs.size, 0);
    return nameOnly ? { name } : { name, sizeOnDisk: docs * 100, empty: docs === 0 };
  });
  return { databases, totalSize: 0, totalSizeMb: 0, ok: 1 };
};

const dbStats: CommandHandler = (ctx) => {
  const collections = ctx.engine.collectionsOf(ctx.db);
  const objects = collections.reduce((n, c) => n + c.docs.size, 0);
  const indexes = collections.reduce((n, c) => n + c.indexes.size, 0);
  return { db: ctx.db, collections: collections.length, views: 0, objects, indexes, ok: 1 };
};

const serverStatus: CommandHandler = (ctx) => ({
  host: ctx.identity.address,
  version: SERVER_VERSION,
  process: "embedded-mongo",
  pid: Long.fromNumber(process.pid),
  uptime: Math.floor((Date.now() - ctx.identity.startedAt.getTime()) / 1000),
  localTime: new Date(),
  ok: 1,
});

const endSessions: CommandHandler = (ctx) => {
  const ids = ctx.body.endSessions;
  if (!Array.isArray(ids)) throw badValue("endSessions must be an array of session ids");
  for (const lsid of ids) ctx.sessions.end(lsid);
  return { ok: 1 };
};

const noop: CommandHandler = () => ({ ok: 1 });

export const handshakeCommands: Record<string, CommandHandler> = {
  hello,
  isMaster,
  ismaster: isMaster,
  ping: noop,
  buildInfo,
  buildinfo: buildInfo,
  listDatabases,
  dbStats,
  serverStatus,
  endSessions,
  killSessions: endSessions,
  refreshSessions: noop,
  startSession: (ctx) => ({
    id: { id: new ObjectId().id },
    timeoutMinutes: 30,
    connectionId: ctx.connectionId,
    ok: 1,
  }),
  whatsmyuri: () => ({ you: "127.0.0.1", ok: 1 }),
  getCmdLineOpts: () => ({ argv: ["embedded-mongo"], parsed: {}, ok: 1 }),
  getParameter: (ctx) => {
    const reply: Doc = { ok: 1 };
    if (ctx.body.featureCompatibilityVersion !== undefined) {
      reply.featureCompatibilityVersion = { version: "7.0" };
    }
    return reply;
  },
  hostInfo: () => ({ system: { currentTime: new Date(), hostname: "embedded" }, ok: 1 }),
  getLog: () => ({ totalLinesWritten: 0, log: [], ok: 1 }),
  replSetGetStatus: (ctx) => ({
    set: ctx.identity.replicaSetName,
    date: new Date(),
    myState: 1,
    members: [
      { _id: 0, name: ctx.identity.address, health: 1, state: 1, stateStr: "PRIMARY", self: true },
    ],
    ok: 1,
  }),
  fsync: async (ctx) => {
    await ctx.engine.commit(true);
    return { numFiles: 1, ok: 1 };
  },
};
