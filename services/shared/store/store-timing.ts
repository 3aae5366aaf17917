/**
 * Where the latency of every store operation goes (the service's metrics, see metrics.ts): set
 * once by the runtime; until then, and in tests that build stores alone, nothing is recorded.
 */
export type StoreObserver = (
  store: string,
  operation: string,
  seconds: number,
  outcome: "ok" | "error",
) => void;

let observer: StoreObserver | undefined;

export function observeStoreOperations(next: StoreObserver | undefined): void {
  observer = next;
}

export function storeObserver(): StoreObserver | undefined {
  return observer;
}
