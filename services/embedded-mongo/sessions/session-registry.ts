/**
 * Server-side logical sessions: the transaction each session has open, and the last
 * retryable write's reply (so a retried write with the same txnNumber is answered, not
 * re-executed). Transactions are committed here: their write set is checked, then applied
 * to the storage engine and logged as one record.
 */
import type { Logger } from "pino";
import { cloneDoc, type Doc, isPlainObject } from "../bson-values.js";
import { badValue, MongoCommandError, writeConflict } from "../errors.js";
import type { StorageEngine } from "../storage/storage-engine.js";
import { LockTable } from "./lock-table.js";
import { Transaction } from "./transaction.js";

export interface ServerSession {
  key: string;
  lastUsed: number;
  /** Highest txnNumber seen on this session. */
  txnNumber: number;
  txn?: Transaction;
  retry?: { txnNumber: number; reply: Doc };
}

export interface SessionOptions {
  transactionLifetimeMs: number;
  sessionTimeoutMs: number;
}

export function sessionKeyOf(lsid: unknown): string {
  if (!isPlainObject(lsid) || lsid.id === undefined)
    throw badValue("lsid must be an object with an id");
  const id = lsid.id as { toString(encoding?: string): string; buffer?: Uint8Array };
  return id.buffer ? Buffer.from(id.buffer).toString("hex") : String(id);
}

export class SessionRegistry {
  readonly locks = new LockTable();
  private readonly sessions = new Map<string, ServerSession>();
  /** Open transactions, oldest first (their snapshots bound the history the engine keeps). */
  private readonly active = new Set<Transaction>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly engine: StorageEngine,
    private readonly logger: Logger,
    private readonly options: SessionOptions,
  ) {
    this.timer = setInterval(() => this.reap(), 1000);
    this.timer.unref();
    engine.historyFloor = () => {
      for (const txn of this.active) return txn.snapshotSeq;
      return undefined;
    };
  }

  get(lsid: unknown): ServerSession {
    const key = sessionKeyOf(lsid);
    let session = this.sessions.get(key);
    if (!session) {
      session = { key, lastUsed: Date.now(), txnNumber: -1 };
      this.sessions.set(key, session);
    }
    session.lastUsed = Date.now();
    return session;
  }

  end(lsid: unknown): void {
    const key = sessionKeyOf(lsid);
    const session = this.sessions.get(key);
    if (session?.txn?.state === "active") this.abort(session.txn, "session ended");
    this.sessions.delete(key);
  }

  begin(session: ServerSession, txnNumber: number): Transaction {
    if (txnNumber < session.txnNumber || (txnNumber === session.txnNumber && session.txn)) {
      throw new MongoCommandError(
        "TransactionTooOld",
        `Cannot start transaction ${txnNumber} on session ${session.key} because a newer transaction ${session.txnNumber} has already started`,
      );
    }
    if (session.txn?.state === "active") this.abort(session.txn, "a newer transaction started");
    session.txnNumber = txnNumber;
    const txn = new Transaction(session.key, txnNumber, this.engine.sequence);
    session.txn = txn;
    this.active.add(txn);
    return txn;
  }

  /** The open transaction a command with this txnNumber belongs to. */
  current(session: ServerSession, txnNumber: number): Transaction {
    const txn = session.txn;
    if (!txn || txn.txnNumber !== txnNumber || txnNumber !== session.txnNumber) {
      throw noSuchTransaction(txnNumber, "it has not been started");
    }
    if (txn.state === "aborted") {
      throw noSuchTransaction(
        txnNumber,
        `it has been aborted${txn.abortReason ? ` (${txn.abortReason})` : ""}`,
      );
    }
    return txn;
  }

  commit(txn: Transaction): void {
    if (txn.state === "committed") return;
    if (txn.state === "aborted") throw noSuchTransaction(txn.txnNumber, "it has been aborted");
    const engine = this.engine;
    // Check the whole write set first, as the state it leaves (not one document at a time), so
    // that the commit applies fully or not at all.
    for (const [ns, writes] of txn.writes) {
      const [db, ...rest] = ns.split(".");
      const collection = engine.getCollection(db, rest.join("."));
      if (!collection) continue;
      try {
        collection.checkUniqueTogether(writes);
      } catch (error) {
        this.abort(txn, "unique index conflict at commit");
        throw writeConflict(
          `Transaction conflicts with a concurrent write: ${(error as Error).message}`,
        );
      }
    }
    try {
      for (const [ns, writes] of txn.writes) {
        const [db, ...rest] = ns.split(".");
        const collection = engine.ensureCollection(db, rest.join("."));
        for (const [idKey, doc] of writes) {
          const exists = collection.docs.has(idKey);
          if (doc === null) {
            if (exists) engine.deleteDoc(collection, idKey);
          } else if (exists) {
            engine.replaceDoc(collection, idKey, doc, false);
          } else {
            engine.insertDoc(collection, doc, false);
          }
        }
      }
    } finally {
      // Whatever happened, the transaction is over: its locks must not outlive it.
      txn.state = "committed";
      this.finish(txn);
    }
  }

  private finish(txn: Transaction): void {
    this.locks.releaseAll(txn);
    this.active.delete(txn);
    this.engine.pruneHistory();
  }

  abort(txn: Transaction, reason: string): void {
    if (txn.state !== "active") return;
    txn.state = "aborted";
    txn.abortReason = reason;
    txn.writes.clear();
    this.finish(txn);
    this.logger.debug(
      { session: txn.sessionKey, txnNumber: txn.txnNumber, reason },
      "transaction aborted",
    );
  }

  /** Remembers a retryable write's reply for its (session, txnNumber). */
  rememberRetry(session: ServerSession, txnNumber: number, reply: Doc): void {
    session.txnNumber = Math.max(session.txnNumber, txnNumber);
    session.retry = { txnNumber, reply: cloneDoc(reply) };
  }

  close(): void {
    clearInterval(this.timer);
    for (const session of this.sessions.values()) {
      if (session.txn?.state === "active") this.abort(session.txn, "server shutting down");
    }
    this.sessions.clear();
  }

  private reap(): void {
    const now = Date.now();
    for (const [key, session] of this.sessions) {
      const txn = session.txn;
      if (txn?.state === "active" && now - txn.startedAt > this.options.transactionLifetimeMs) {
        this.abort(txn, "transaction lifetime limit exceeded");
      }
      if (now - session.lastUsed > this.options.sessionTimeoutMs) {
        if (txn?.state === "active") this.abort(txn, "session expired");
        this.sessions.delete(key);
      }
    }
  }
}

export function noSuchTransaction(txnNumber: number, why: string): MongoCommandError {
  return new MongoCommandError(
    "NoSuchTransaction",
    `Transaction with { txnNumber: ${txnNumber} } has been aborted or was never started: ${why}`,
    { labels: ["TransientTransactionError"] },
  );
}
