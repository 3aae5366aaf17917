import { fileURLToPath } from "node:url";

/**
 * The environment that CPU-profiles a child process into `dir` (the preload in cpu-profile.ts:
 * Node 20 refuses --cpu-prof in NODE_OPTIONS).
 */
export function profilingEnv(dir: string): Record<string, string> {
  const preload = fileURLToPath(new URL("./cpu-profile.ts", import.meta.url));
  return { NODE_OPTIONS: `--import tsx --import ${preload}`, CPU_PROFILE_DIR: dir };
}
