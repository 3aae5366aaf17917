/** A signing key as its source knows it, without the key material. */
export interface KeyTimes {
  readonly kid: string;
  readonly createdAt: number;
  /** When it starts signing (ms since the epoch). */
  readonly activatesAt: number;
}

export interface KeyState extends KeyTimes {
  readonly signing: boolean;
  readonly retiredAt?: number;
  readonly verifyUntil?: number;
  /** In the JWKS: pending (published before it signs), signing, or retired but still verifying. */
  readonly published: boolean;
}

/**
 * Pure rotation rules of the embedded default: the newest key whose activation time has come
 * signs; the key before it retired at that moment and stays published for `retentionMs` (until
 * every token it signed has expired); keys not yet active are published already, so verifiers
 * know them before the first token they sign.
 */
export function scheduleKeys(
  keys: readonly KeyTimes[],
  now: number,
  retentionMs: number,
): KeyState[] {
  const sorted = [...keys].sort((a, b) => a.activatesAt - b.activatesAt || cmp(a.kid, b.kid));
  const active = sorted.filter((key) => key.activatesAt <= now);
  const signer = active.at(-1);
  return sorted.map((key) => {
    if (key.activatesAt > now) return { ...key, signing: false, published: true };
    const successor = active[active.indexOf(key) + 1];
    if (!successor) return { ...key, signing: key === signer, published: true };
    const verifyUntil = successor.activatesAt + retentionMs;
    return {
      ...key,
      signing: false,
      retiredAt: successor.activatesAt,
      verifyUntil,
      published: verifyUntil > now,
    };
  });
}

/** The next moment the schedule changes by itself (an activation or an expiry), if any. */
export function nextChange(states: readonly KeyState[], now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const state of states) {
    if (state.activatesAt > now) next = Math.min(next, state.activatesAt);
    if (state.verifyUntil !== undefined && state.verifyUntil > now) {
      next = Math.min(next, state.verifyUntil);
    }
  }
  return next;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
