import {
  type Env,
  envEnum,
  envInt,
  envOptionalString,
  envString,
} from "@movement-detection/shared/config";
import type { RestartPolicy } from "./supervisor.js";

/** What `npm start` reads from its environment (see the README's configuration table). */
export interface LauncherConfig {
  /** A real MongoDB for every service; unset: the embedded store is started. */
  readonly mongodbUri: string | undefined;
  /** Where the embedded store keeps its data (default .data/mongo). */
  readonly dataDir: string | undefined;
  /**
   * Where the local CA, the workload certificates (pki/) and the development secrets (secrets/)
   * are kept, outside the store's files (default .data).
   */
  readonly stateDir: string | undefined;
  /** `fixed` (the documented ports) or `ephemeral` (free ports, for tests and side-by-side runs). */
  readonly ports: "fixed" | "ephemeral";
  /** The address the gateway binds (default 127.0.0.1, this machine only). */
  readonly gatewayHost: string;
  /** What happens when a child dies on its own (see supervisor.ts and the README). */
  readonly restart: RestartPolicy;
  /** Niceness of the store, auth, catalogue and authoring (stack.ts, `controlPlaneNiceness`). */
  readonly controlPlaneNiceness: number;
}

export function loadLauncherConfig(env: Env): LauncherConfig {
  return Object.freeze({
    mongodbUri: envOptionalString(env, "MONGODB_URI"),
    dataDir: envOptionalString(env, "EMBEDDED_MONGO_DATA_DIR"),
    stateDir: envOptionalString(env, "LAUNCHER_STATE_DIR"),
    ports: envEnum(env, "LAUNCHER_PORTS", ["fixed", "ephemeral"] as const, "fixed"),
    gatewayHost: envString(env, "LAUNCHER_GATEWAY_HOST", "127.0.0.1"),
    restart: Object.freeze({
      maxRestarts: envInt(env, "LAUNCHER_MAX_RESTARTS", 5, { min: 0, max: 1000 }),
      windowMs: envInt(env, "LAUNCHER_RESTART_WINDOW_MS", 300_000, { min: 1000, max: 86_400_000 }),
      backoffMs: envInt(env, "LAUNCHER_RESTART_BACKOFF_MS", 1000, { min: 0, max: 600_000 }),
      maxBackoffMs: 30_000,
    }),
    controlPlaneNiceness: envInt(env, "LAUNCHER_CONTROL_PLANE_NICE", 10, { min: 0, max: 19 }),
  });
}
