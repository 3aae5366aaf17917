import {
  type Env,
  envInt,
  envOptionalString,
  envPort,
  readServiceConfig,
  type ServiceConfig,
} from "@movement-detection/shared/config";
import { checkInternalUrl, internalServiceUrl } from "@movement-detection/shared/security";
import { readTokenSettings, type TokenSettings } from "@movement-detection/shared/tokens";

/** Session limits of the contract ("Detection sessions"), all configurable for tests. */
export interface SessionLimits {
  /** A session never attached within this is cancelled (ATTACH_TIMEOUT). */
  readonly attachTimeoutMs: number;
  /** A session with no message from its client for this long is cancelled (IDLE_TIMEOUT). */
  readonly idleTimeoutMs: number;
  /** A session ends `failed` (SESSION_MAX_DURATION_EXCEEDED) this long after its creation. */
  readonly maxDurationMs: number;
  /** Accepted frames per session; beyond it the session ends `failed` (FRAME_LIMIT_EXCEEDED). */
  readonly maxFrames: number;
  /** Sustained frames per second in `live` mode (replay is unthrottled). */
  readonly liveMaxFps: number;
  /** Frames a live client may send at once above the sustained rate (a token bucket's size). */
  readonly liveBurstFrames: number;
  /** Largest websocket message (bigger: close 1009). */
  readonly maxMessageBytes: number;
  /** No valid hello within this: close 4401. */
  readonly helloTimeoutMs: number;
  /** Concurrent sessions (created, streaming, finalizing) per project. */
  readonly maxActiveSessionsPerProject: number;
  /**
   * Largest summary (`terminal_outcome`, JSON bytes): past it the lists of repetitions and holds
   * are cut (the totals stay whole). Keeps the session document under MongoDB's 16 MiB.
   */
  readonly summaryMaxBytes: number;
}

/** How the owner of a session makes its progress durable, and how replicas share sessions. */
export interface DurabilitySettings {
  /** A checkpoint is written when this long passed since the last one and frames arrived. */
  readonly checkpointIntervalMs: number;
  /** ...or as soon as this many frames were accepted since the last one. */
  readonly checkpointMaxFrames: number;
  /** Frames accepted but not yet checkpointed (= not acknowledged) at which reading pauses. */
  readonly maxUnackedFrames: number;
  /** Bytes queued towards a slow client at which reading its frames pauses. */
  readonly outboundHighWaterBytes: number;
  /** A replica that has not renewed its presence for this long is dead; its leases are free. */
  readonly replicaTtlMs: number;
  /** How often the sweeper looks for sessions to time out or complete. */
  readonly sweepIntervalMs: number;
}

export interface DetectionConfig extends ServiceConfig {
  /** The websocket listener (the gateway proxies the public stream to it); 0 = any free port. */
  readonly streamPort: number;
  /** How other replicas reach this one's gRPC port (lease takeover, live progress). */
  readonly advertiseUrl: string | undefined;
  readonly authServiceUrl: string;
  readonly authoringServiceUrl: string;
  readonly rpcTimeoutMs: number;
  readonly tokens: TokenSettings;
  readonly limits: SessionLimits;
  readonly durability: DurabilitySettings;
  /**
   * Days an ended session (its document, summary included, and any record chunks left) is kept
   * after it ended; 0 keeps them for ever (DETECTION_SESSION_RETENTION_DAYS).
   */
  readonly sessionRetentionDays: number;
  /**
   * Session ends (summary, terminal write) this replica runs at once; the others wait their
   * turn (DETECTION_SESSION_ENDS_IN_FLIGHT; stream/session-lifecycle.ts).
   */
  readonly sessionEndsInFlight: number;
}

const MINUTE = 60_000;

/** The only place the detection service reads its environment (see the README's configuration table). */
export function loadDetectionConfig(env: Env): DetectionConfig {
  const base = readServiceConfig(env, { name: "detection", grpcPort: 50054, adminPort: 9104 });
  const ms = (name: string, fallback: number, max = 7 * 24 * 60 * MINUTE) =>
    envInt(env, name, fallback, { min: 1, max });
  const liveMaxFps = envInt(env, "DETECTION_LIVE_MAX_FPS", 120, { min: 1, max: 100_000 });
  const checkpointMaxFrames = envInt(env, "DETECTION_CHECKPOINT_MAX_FRAMES", 3000, {
    min: 1,
    max: 10_000_000,
  });
  return Object.freeze({
    ...base,
    streamPort: envPort(env, "STREAM_PORT", 0),
    advertiseUrl: advertiseUrl(env, base),
    authServiceUrl: internalServiceUrl(env, "AUTH_SERVICE_URL", 50051, base.security),
    authoringServiceUrl: internalServiceUrl(env, "AUTHORING_SERVICE_URL", 50053, base.security),
    rpcTimeoutMs: envInt(env, "RPC_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
    tokens: readTokenSettings(env),
    limits: Object.freeze({
      attachTimeoutMs: ms("DETECTION_ATTACH_TIMEOUT_MS", 10 * MINUTE),
      idleTimeoutMs: ms("DETECTION_IDLE_TIMEOUT_MS", 2 * MINUTE),
      maxDurationMs: ms("DETECTION_MAX_DURATION_MS", 240 * MINUTE),
      maxFrames: envInt(env, "DETECTION_MAX_FRAMES", 2_000_000, { min: 1, max: 1e12 }),
      liveMaxFps,
      liveBurstFrames: envInt(env, "DETECTION_LIVE_BURST_FRAMES", liveMaxFps, {
        min: 1,
        max: 10_000_000,
      }),
      maxMessageBytes: envInt(env, "DETECTION_MAX_MESSAGE_BYTES", 64 * 1024, {
        min: 1024,
        max: 64 * 1024 * 1024,
      }),
      helloTimeoutMs: ms("DETECTION_HELLO_TIMEOUT_MS", 5000, 10 * MINUTE),
      maxActiveSessionsPerProject: envInt(env, "DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT", 100, {
        min: 1,
        max: 1_000_000,
      }),
      summaryMaxBytes: envInt(env, "DETECTION_SUMMARY_MAX_BYTES", 8 * 1024 * 1024, {
        min: 1024,
        max: 15 * 1024 * 1024,
      }),
    }),
    durability: Object.freeze({
      checkpointIntervalMs: ms("DETECTION_CHECKPOINT_INTERVAL_MS", 5000, 10 * MINUTE),
      checkpointMaxFrames,
      maxUnackedFrames: envInt(
        env,
        "DETECTION_MAX_UNACKED_FRAMES",
        Math.max(4 * checkpointMaxFrames, 1000),
        { min: 1, max: 100_000_000 },
      ),
      outboundHighWaterBytes: envInt(env, "DETECTION_OUTBOUND_HIGH_WATER_BYTES", 1024 * 1024, {
        min: 1024,
        max: 1024 * 1024 * 1024,
      }),
      replicaTtlMs: ms("DETECTION_REPLICA_TTL_MS", 10_000, 10 * MINUTE),
      sweepIntervalMs: ms("DETECTION_SWEEP_INTERVAL_MS", 5000, 10 * MINUTE),
    }),
    // Ten years (longer is "for ever": 0); a TTL index's seconds must fit in an int32 (68 years).
    sessionRetentionDays: envInt(env, "DETECTION_SESSION_RETENTION_DAYS", 30, {
      min: 0,
      max: 3650,
    }),
    sessionEndsInFlight: envInt(env, "DETECTION_SESSION_ENDS_IN_FLIGHT", 1, { min: 1, max: 1000 }),
  });
}

/** How other replicas reach this one: set per replica in a cluster (the pod's IP). */
function advertiseUrl(env: Env, base: ServiceConfig): string | undefined {
  const set = envOptionalString(env, "DETECTION_ADVERTISE_URL");
  if (set !== undefined) return checkInternalUrl("DETECTION_ADVERTISE_URL", set, base.security);
  if (base.grpcPort === 0) return undefined;
  return `${base.security.transport === "mtls" ? "https" : "http"}://127.0.0.1:${base.grpcPort}`;
}
