/**
 * Document locks held by open transactions. A transaction touching a document locked by
 * another transaction gets WriteConflict; a write outside any transaction waits until the
 * lock is released (as mongod does).
 */
import type { Transaction } from "./transaction.js";

export class LockWait {
  constructor(readonly released: Promise<void>) {}
}

export function lockKey(ns: string, idKey: string): string {
  return `${ns}\u0000${idKey}`;
}

export class LockTable {
  private readonly owners = new Map<string, Transaction>();
  private readonly waiters = new Map<Transaction, Array<() => void>>();

  ownerOf(key: string): Transaction | undefined {
    return this.owners.get(key);
  }

  acquire(key: string, txn: Transaction): void {
    this.owners.set(key, txn);
    txn.locks.add(key);
  }

  /** A promise resolved when `txn` releases its locks. */
  waitFor(txn: Transaction): LockWait {
    return new LockWait(
      new Promise<void>((resolve) => {
        const list = this.waiters.get(txn) ?? [];
        list.push(resolve);
        this.waiters.set(txn, list);
      }),
    );
  }

  releaseAll(txn: Transaction): void {
    for (const key of txn.locks) if (this.owners.get(key) === txn) this.owners.delete(key);
    txn.locks.clear();
    const list = this.waiters.get(txn);
    this.waiters.delete(txn);
    for (const resolve of list ?? []) resolve();
  }

  get size(): number {
    return this.owners.size;
  }
}
