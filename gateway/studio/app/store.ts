/**
 * The page's state in one place: a value, replaced (never mutated) by `set`, and listeners told
 * of each change. Sections read what they need and listen to the part they show (`select`), so
 * a change is shown wherever it matters without one section calling another's render function.
 */
export interface Store<S extends object> {
  get(): S;
  /** Merges `patch` (or what `update` makes of the state) into a new state, and tells listeners. */
  set(patch: Partial<S> | ((state: S) => Partial<S>)): void;
  /** Calls `listener` with `pick(state)` now and whenever it changes (compared with Object.is). */
  select<T>(
    pick: (state: S) => T,
    listener: (value: T, previous: T | undefined) => void,
  ): () => void;
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial;
  const listeners = new Set<(state: S) => void>();
  return {
    get: () => state,
    set(patch) {
      const changes = typeof patch === "function" ? patch(state) : patch;
      state = { ...state, ...changes };
      for (const listener of [...listeners]) listener(state);
    },
    select(pick, listener) {
      let previous = pick(state);
      const watch = (next: S) => {
        const value = pick(next);
        if (Object.is(value, previous)) return;
        const before = previous;
        previous = value;
        listener(value, before);
      };
      listeners.add(watch);
      listener(previous, undefined);
      return () => listeners.delete(watch);
    },
  };
}
