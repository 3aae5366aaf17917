import type { KeyState } from "./key-schedule.js";
import type { PrivateSigningJwk } from "./signing-key.js";

export interface SourcedKey {
  readonly jwk: PrivateSigningJwk;
  readonly state: KeyState;
}

/** Where signing keys come from: the embedded default's database, or a mounted directory. */
export interface KeySource {
  readonly kind: "database" | "directory";
  /** Every key and its state now; `nextChangeAt`: when the states change without a reload. */
  load(now: number): Promise<{ keys: SourcedKey[]; nextChangeAt: number }>;
  /** Publishes a new key that signs after `delaySeconds`; absent for externally managed keys. */
  rotate?(now: number, delaySeconds: number): Promise<string>;
}
