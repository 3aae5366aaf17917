/**
 * Routes one command document to its handler and applies what surrounds every command:
 * sessions, transactions (start / continue / commit / abort), retryable-write replay,
 * write concern, durability before acknowledgement, and MongoDB-shaped error replies.
 */
import type { Logger } from "pino";
import type { Doc } from "../bson-values.js";
import type { CursorRegistry } from "../cursor-registry.js";
import { badValue, MongoCommandError, toCommandError } from "../errors.js";
import { Deadline, parseMaxTimeMS } from "../operation-deadline.js";
import { type ClientConnection, UNAUTHENTICATED_COMMANDS } from "../security/connection-auth.js";
import type { UserRegistry } from "../security/user-registry.js";
import { directAccess, transactionAccess } from "../sessions/data-access.js";
import {
  noSuchTransaction,
  type ServerSession,
  type SessionRegistry,
} from "../sessions/session-registry.js";
import type { Transaction } from "../sessions/transaction.js";
import type { StorageEngine } from "../storage/storage-engine.js";
import { adminCommands } from "./admin-commands.js";
import { authCommands } from "./auth-commands.js";
import type { CommandContext, CommandHandler, ServerIdentity } from "./command-context.js";
import { handshakeCommands } from "./handshake-commands.js";
import { readCommands } from "./read-commands.js";
import { WRITE_COMMANDS, writeCommands } from "./write-commands.js";

const HANDLERS: Record<string, CommandHandler> = {
  ...handshakeCommands,
  ...readCommands,
  ...writeCommands,
  ...adminCommands,
  ...authCommands,
};

const TRANSACTION_COMMANDS = new Set([
  "find",
  "getMore",
  "killCursors",
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "aggregate",
  "distinct",
  "create",
  "createIndexes",
  "commitTransaction",
  "abortTransaction",
]);

export interface DispatcherDeps {
  engine: StorageEngine;
  sessions: SessionRegistry;
  cursors: CursorRegistry;
  identity: ServerIdentity;
  users: UserRegistry;
  logger: Logger;
  /** The server's limit on one command's work, in ms (0: none). */
  maxTimeMs: number;
}

export function createDispatcher(deps: DispatcherDeps) {
  const { engine, sessions } = deps;

  async function dispatch(db: string, body: Doc, client: ClientConnection): Promise<Doc> {
    const name = Object.keys(body)[0];
    try {
      engine.assertHealthy();
      const handler = name === undefined ? undefined : HANDLERS[name];
      const isTxnControl = name === "commitTransaction" || name === "abortTransaction";
      if (!handler && !isTxnControl) {
        throw new MongoCommandError(
          "CommandNotFound",
          `no such command: '${name}' (not supported by the embedded server)`,
        );
      }
      // Before anything else (sessions included): an unauthenticated client gets nothing more.
      if (!client.auth.authenticated && !UNAUTHENTICATED_COMMANDS.has(name)) {
        throw new MongoCommandError("Unauthorized", `command ${name} requires authentication`);
      }
      // No server session for an unauthenticated client (its ping may carry an lsid): nothing
      // it sends may make the server hold state.
      const session =
        body.lsid !== undefined && client.auth.authenticated ? sessions.get(body.lsid) : undefined;
      const txnNumber = body.txnNumber === undefined ? undefined : Number(body.txnNumber);
      const maxTimeMS = parseMaxTimeMS(body.maxTimeMS);
      const ctx: CommandContext = {
        db,
        body,
        engine,
        sessions,
        cursors: deps.cursors,
        access: directAccess(engine, sessions.locks),
        session,
        identity: deps.identity,
        connectionId: client.id,
        auth: client.auth,
        users: deps.users,
        logger: deps.logger,
        deadline: new Deadline(maxTimeMS, deps.maxTimeMs),
      };
      if (body.autocommit === false) {
        if (!session || txnNumber === undefined) {
          throw badValue("a transaction requires lsid and txnNumber");
        }
        return await inTransaction(ctx, name, handler, session, txnNumber);
      }
      if (isTxnControl) {
        throw new MongoCommandError(
          "InvalidOptions",
          `${name} must be run with autocommit: false inside a transaction`,
        );
      }
      if (txnNumber !== undefined && session && WRITE_COMMANDS.has(name)) {
        return await retryableWrite(ctx, handler!, session, txnNumber);
      }
      const reply = await handler!(ctx);
      await acknowledge(ctx, reply);
      return reply;
    } catch (error) {
      return toCommandError(error).toReply();
    }
  }

  async function retryableWrite(
    ctx: CommandContext,
    handler: CommandHandler,
    session: ServerSession,
    txnNumber: number,
  ): Promise<Doc> {
    if (session.retry?.txnNumber === txnNumber)
      return { ...session.retry.reply, retriedStmtIds: [] };
    if (txnNumber < session.txnNumber) {
      throw new MongoCommandError(
        "TransactionTooOld",
        `Retryable write with txnNumber ${txnNumber} is prohibited on session because a newer retryable write with txnNumber ${session.txnNumber} has already started`,
      );
    }
    session.txnNumber = txnNumber;
    const reply = await handler(ctx);
    await acknowledge(ctx, reply);
    sessions.rememberRetry(session, txnNumber, reply);
    return reply;
  }

  async function inTransaction(
    ctx: CommandContext,
    name: string,
    handler: CommandHandler | undefined,
    session: ServerSession,
    txnNumber: number,
  ): Promise<Doc> {
    if (!TRANSACTION_COMMANDS.has(name)) {
      throw new MongoCommandError(
        "OperationNotSupportedInTransaction",
        `Cannot run '${name}' in a multi-document transaction.`,
      );
    }
    if (name === "commitTransaction") {
      const txn = session.txn;
      if (txn && txn.txnNumber === txnNumber && txn.state === "committed") return { ok: 1 };
      const current = sessions.current(session, txnNumber);
      sessions.commit(current);
      await acknowledge(ctx, {});
      return { ok: 1 };
    }
    if (name === "abortTransaction") {
      const txn = session.txn;
      if (txn && txn.txnNumber === txnNumber && txn.state === "committed") {
        throw new MongoCommandError("TransactionCommitted", "Transaction has been committed.");
      }
      sessions.abort(sessions.current(session, txnNumber), "aborted by the client");
      return { ok: 1 };
    }
    let txn: Transaction;
    if (ctx.body.startTransaction === true) {
      const level = (ctx.body.readConcern as Doc | undefined)?.level;
      if (level !== undefined && !["local", "majority", "snapshot"].includes(String(level))) {
        throw badValue(
          `The readConcern level must be either 'local', 'majority' or 'snapshot' in a transaction`,
        );
      }
      txn = sessions.begin(session, txnNumber);
    } else {
      txn = sessions.current(session, txnNumber);
    }
    ctx.access = transactionAccess(engine, sessions.locks, txn);
    try {
      const reply = await handler!(ctx);
      if (Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) {
        sessions.abort(txn, "a write failed");
      }
      return reply;
    } catch (error) {
      if (txn.state === "active") sessions.abort(txn, toCommandError(error).message);
      const e = toCommandError(error);
      if (e.code === 251 || e.code === 112) throw e;
      throw e;
    }
  }

  /** Makes the command's writes durable per its write concern before replying. */
  async function acknowledge(ctx: CommandContext, reply: Doc): Promise<void> {
    const writeConcern = ctx.body.writeConcern as Doc | undefined;
    await engine.commit(writeConcern?.j === true || writeConcern?.fsync === true);
    const w = writeConcern?.w;
    if (typeof w === "number" && w > 1) {
      reply.writeConcernError = {
        code: 100,
        codeName: "UnsatisfiableWriteConcern",
        errmsg: `Not enough data-bearing nodes to satisfy write concern w: ${w} (single-node replica set)`,
      };
    }
  }

  return { dispatch };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
export { noSuchTransaction };
