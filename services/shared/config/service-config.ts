import {
  type InternalSecurity,
  readInternalSecurity,
} from "../security/internal-security-config.js";
import type { Workload } from "../security/workloads.js";
import { readTelemetryConfig, type TelemetryConfig } from "../telemetry/config.js";
import {
  ConfigError,
  type Env,
  envBool,
  envEnum,
  envInt,
  envOptionalString,
  envPort,
  envString,
} from "./env.js";

/** Settings every internal service reads the same way (see the README's configuration table). */
export interface ServiceConfig {
  readonly environment: string;
  readonly logLevel: LogLevel;
  readonly grpcHost: string;
  readonly grpcPort: number;
  readonly adminPort: number;
  readonly mongodbUri: string;
  readonly mongodbDatabase: string;
  /**
   * How long a database call waits for a reachable server before it fails UNAVAILABLE (also the
   * connect timeout): the longest an outage holds a request up.
   */
  readonly mongodbTimeoutMs: number;
  /**
   * The `maxTimeMS` every query and filtered write of the service carries (0: none): the database
   * stops a runaway query after this long, and the request fails 503 `unavailable`.
   */
  readonly mongodbMaxTimeMs: number;
  readonly shutdownTimeoutMs: number;
  /** Started by the local launcher, which orders shutdown itself. */
  readonly supervised: boolean;
  /** Tracing (OpenTelemetry's standard OTEL_* variables). */
  readonly telemetry: TelemetryConfig;
  /** Workload identity on internal calls (mutual TLS by default). */
  readonly security: InternalSecurity;
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The embedded store's default address, so a service started alone finds `npm start`'s store. */
export const DEFAULT_MONGODB_URI = "mongodb://127.0.0.1:27117/?directConnection=true";

export interface ServiceDefaults {
  readonly name: Workload;
  readonly grpcPort: number;
  readonly adminPort: number;
}

export function readServiceConfig(env: Env, defaults: ServiceDefaults): ServiceConfig {
  const environment = envString(env, "ENVIRONMENT", "development");
  // The development default would have a production service retry 127.0.0.1 forever, never
  // saying that nothing told it where its database is.
  if (environment === "production" && envOptionalString(env, "MONGODB_URI") === undefined) {
    throw new ConfigError("MONGODB_URI", "is required when ENVIRONMENT=production");
  }
  return Object.freeze({
    environment,
    logLevel: envEnum(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    grpcHost: envString(env, "GRPC_HOST", "0.0.0.0"),
    grpcPort: envPort(env, "GRPC_PORT", defaults.grpcPort),
    adminPort: envPort(env, "ADMIN_PORT", defaults.adminPort),
    mongodbUri: envString(env, "MONGODB_URI", DEFAULT_MONGODB_URI),
    mongodbDatabase: envString(env, "MONGODB_DATABASE", `mds_${defaults.name}`),
    mongodbTimeoutMs: envInt(env, "MONGODB_TIMEOUT_MS", 2000, { min: 100, max: 60_000 }),
    // Under the gateway's RPC_TIMEOUT_MS (10 s): the service still answers when it expires.
    mongodbMaxTimeMs: envInt(env, "MONGODB_MAX_TIME_MS", 5000, { min: 0, max: 600_000 }),
    shutdownTimeoutMs: envInt(env, "SHUTDOWN_TIMEOUT_MS", 5000, { min: 0, max: 600_000 }),
    supervised: envBool(env, "SUPERVISED", false),
    telemetry: readTelemetryConfig(env, defaults.name),
    security: readInternalSecurity(env, defaults.name),
  });
}
