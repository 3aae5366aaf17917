import {
  type Env,
  envBool,
  envEnum,
  envInt,
  envList,
  envOptionalString,
  envPort,
  envString,
  LOG_LEVELS,
  type LogLevel,
} from "@movement-detection/shared/config";
import {
  checkInternalUrl,
  type InternalSecurity,
  internalServiceUrl,
  readInternalSecurity,
} from "@movement-detection/shared/security";
import { readTelemetryConfig, type TelemetryConfig } from "@movement-detection/shared/telemetry";
import { readTokenSettings, type TokenSettings } from "@movement-detection/shared/tokens";
import { ANY_ORIGIN, parseCorsOrigins } from "./middleware/cors.js";

/** Everything the gateway reads from its environment, read once at start (see the README). */
export interface GatewayConfig {
  readonly environment: string;
  readonly logLevel: LogLevel;
  readonly host: string;
  readonly port: number;
  readonly adminPort: number;
  /** Base of the URLs handed to clients (stream_url); unset: the address the client used. */
  readonly publicBaseUrl: string | undefined;
  readonly bodyLimitBytes: number;
  /** A request body not whole after this is answered 400 BODY_UNREADABLE (and its connection closed). */
  readonly bodyTimeoutMs: number;
  /** Origins whose pages may read answers (`*`: any), as browsers write them: middleware/cors.ts. */
  readonly corsAllowedOrigins: readonly string[];
  readonly shutdownTimeoutMs: number;
  readonly authServiceUrl: string;
  readonly catalogueServiceUrl: string;
  readonly authoringServiceUrl: string;
  readonly detectionServiceUrls: readonly string[];
  readonly rpcTimeoutMs: number;
  /**
   * Session creations this gateway lets run at once; the others wait their turn, at most
   * `sessionCreationsQueued` of them (routes/sessions.ts: a burst paced, frames first).
   */
  readonly sessionCreationsInFlight: number;
  readonly sessionCreationsQueued: number;
  /**
   * A creation that waited this long for its turn is refused. (One that holds its place longer
   * than a second gives the place up: routes/sessions.ts.)
   */
  readonly sessionCreationsWaitMs: number;
  readonly supervised: boolean;
  /** Behind a trusted ingress: client addresses come from X-Forwarded-For (rate limits need them). */
  readonly trustProxy: boolean;
  /** Issuer and clock tolerance of access tokens, shared with the auth service. */
  readonly tokens: TokenSettings;
  /** Tracing (OpenTelemetry's standard OTEL_* variables). */
  readonly telemetry: TelemetryConfig;
  /** The gateway's workload identity on internal calls and the stream hop (mutual TLS). */
  readonly security: InternalSecurity;
  /**
   * Serve MoveSpec Studio at /studio (docs/studio.md): on by default except in production, where
   * the build leaves its sources out.
   */
  readonly studioEnabled: boolean;
}

export function loadGatewayConfig(env: Env): GatewayConfig {
  const security = readInternalSecurity(env, "gateway");
  const environment = envString(env, "ENVIRONMENT", "development");
  return Object.freeze({
    environment,
    logLevel: envEnum(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    host: envString(env, "HOST", "0.0.0.0"),
    port: envPort(env, "PORT", 8080),
    adminPort: envPort(env, "ADMIN_PORT", 9100),
    publicBaseUrl: envOptionalString(env, "PUBLIC_BASE_URL"),
    bodyLimitBytes: envInt(env, "BODY_LIMIT_BYTES", 1024 * 1024, {
      min: 1024,
      max: 64 * 1024 * 1024,
    }),
    bodyTimeoutMs: envInt(env, "BODY_TIMEOUT_MS", 30_000, { min: 100, max: 300_000 }),
    corsAllowedOrigins: parseCorsOrigins(
      envList(env, "CORS_ALLOWED_ORIGINS", [ANY_ORIGIN]),
      "CORS_ALLOWED_ORIGINS",
    ),
    shutdownTimeoutMs: envInt(env, "SHUTDOWN_TIMEOUT_MS", 5000, { min: 0, max: 600_000 }),
    authServiceUrl: internalServiceUrl(env, "AUTH_SERVICE_URL", 50051, security),
    catalogueServiceUrl: internalServiceUrl(env, "CATALOGUE_SERVICE_URL", 50052, security),
    authoringServiceUrl: internalServiceUrl(env, "AUTHORING_SERVICE_URL", 50053, security),
    detectionServiceUrls: envList(env, "DETECTION_SERVICE_URLS", [
      `${security.transport === "mtls" ? "https" : "http"}://127.0.0.1:50054`,
    ]).map((url) => checkInternalUrl("DETECTION_SERVICE_URLS", url, security)),
    rpcTimeoutMs: envInt(env, "RPC_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
    sessionCreationsInFlight: envInt(env, "SESSION_CREATIONS_IN_FLIGHT", 1, { min: 1, max: 1000 }),
    sessionCreationsQueued: envInt(env, "SESSION_CREATIONS_QUEUED", 500, { min: 0, max: 100_000 }),
    sessionCreationsWaitMs: envInt(env, "SESSION_CREATIONS_WAIT_MS", 10_000, {
      min: 100,
      max: 600_000,
    }),
    supervised: envBool(env, "SUPERVISED", false),
    trustProxy: envBool(env, "TRUST_PROXY", false),
    tokens: readTokenSettings(env),
    telemetry: readTelemetryConfig(env, "gateway"),
    security,
    studioEnabled: envBool(env, "STUDIO_ENABLED", environment !== "production"),
  });
}
