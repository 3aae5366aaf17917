import { type CompiledSpec, type Issue, load } from "@movement-detection/movespec";
import type { SpecStore } from "../store/spec-store.js";

export type SpecLoad = { spec: CompiledSpec } | { errors: Issue[] };

/**
 * Compiled MoveSpecs by version id. Versions never change, so an entry never goes stale; the
 * cache only bounds memory (least recently used out first).
 */
export interface SpecCache {
  /** Compiles `yaml` for the version (or returns the cached result). */
  compile(versionId: string, yaml: string): SpecLoad;
  /** The compiled spec of a version copied at admission; undefined if unknown. */
  get(versionId: string): Promise<CompiledSpec | undefined>;
}

export function createSpecCache(store: SpecStore, capacity = 256): SpecCache {
  const entries = new Map<string, SpecLoad>();

  const remember = (versionId: string, result: SpecLoad): SpecLoad => {
    entries.delete(versionId);
    entries.set(versionId, result);
    if (entries.size > capacity) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    return result;
  };

  const compile = (versionId: string, yaml: string): SpecLoad => {
    const cached = entries.get(versionId);
    if (cached) return remember(versionId, cached);
    const result = load(yaml);
    return remember(versionId, result.spec ? { spec: result.spec } : { errors: result.errors });
  };

  return {
    compile,
    async get(versionId) {
      const cached = entries.get(versionId);
      if (cached) return "spec" in cached ? cached.spec : undefined;
      const stored = await store.find(versionId);
      if (!stored) return undefined;
      const result = compile(versionId, stored.yaml_source);
      return "spec" in result ? result.spec : undefined;
    },
  };
}
