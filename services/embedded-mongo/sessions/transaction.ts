/**
 * One multi-document transaction: its private write set (applied to the committed state
 * only on commit) and the document locks it holds. Other sessions never see the write set.
 */
import type { Doc } from "../bson-values.js";

export type TransactionState = "active" | "committed" | "aborted";

export class Transaction {
  state: TransactionState = "active";
  /** ns -> id key -> new document (null: deleted). Iteration order is write order. */
  readonly writes = new Map<string, Map<string, Doc | null>>();
  /** Lock keys (ns + id key) this transaction holds. */
  readonly locks = new Set<string>();
  readonly startedAt = Date.now();
  /** Writes of documents whose committed version is newer than this conflict. */
  readonly snapshotSeq: number;
  abortReason?: string;

  constructor(
    readonly sessionKey: string,
    readonly txnNumber: number,
    snapshotSeq: number,
  ) {
    this.snapshotSeq = snapshotSeq;
  }

  overlay(ns: string): Map<string, Doc | null> | undefined {
    return this.writes.get(ns);
  }

  overlayFor(ns: string): Map<string, Doc | null> {
    let map = this.writes.get(ns);
    if (!map) {
      map = new Map();
      this.writes.set(ns, map);
    }
    return map;
  }
}
