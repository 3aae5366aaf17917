import {
  ConfigError,
  type Env,
  envBool,
  envInt,
  envList,
  envOptionalString,
} from "../config/env.js";

/**
 * Tracing settings, from OpenTelemetry's standard environment variables (the subset this system
 * honours, see the README). Every process reads them the same way, once, at start.
 *
 * - `export`: spans are recorded (as sampled) and sent by OTLP over HTTP (protobuf) to the
 *   configured endpoint. Chosen whenever an OTLP endpoint is set.
 * - `propagate` (no endpoint, OTEL_PROPAGATORS set): nothing is recorded or sent, but a caller's
 *   W3C `traceparent` is carried through every hop, so its trace id shows in our logs and error
 *   envelopes. Opt-in: carrying context costs some CPU per request (README, "Tracing").
 * - `off` (the default without an endpoint, or OTEL_SDK_DISABLED=true): no tracing code runs.
 */
export interface TelemetryConfig {
  readonly mode: "export" | "propagate" | "off";
  /** W3C trace context and/or baggage (OTEL_PROPAGATORS; both by default). */
  readonly propagators: readonly Propagator[];
  /** `service.name` of the spans (OTEL_SERVICE_NAME, else the process's own name). */
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, parsed. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerSetting;
  /** Batch span processor: how often a batch leaves, and the queue bounds. */
  readonly batch: {
    readonly scheduledDelayMillis: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
    readonly exportTimeoutMillis: number;
  };
}

export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

export interface SamplerSetting {
  readonly name: (typeof SAMPLERS)[number];
  /** The ratio of the `traceidratio` samplers (OTEL_TRACES_SAMPLER_ARG), 0 to 1. */
  readonly ratio: number;
}

const SUPPORTED_PROTOCOL = "http/protobuf";
export const PROPAGATORS = ["tracecontext", "baggage"] as const;
export type Propagator = (typeof PROPAGATORS)[number];

export function readTelemetryConfig(env: Env, processName: string): TelemetryConfig {
  const endpoint =
    envOptionalString(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ??
    envOptionalString(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const exporter = envOptionalString(env, "OTEL_TRACES_EXPORTER") ?? "otlp";
  if (exporter !== "otlp" && exporter !== "none") {
    throw new ConfigError("OTEL_TRACES_EXPORTER", `must be otlp or none, got "${exporter}"`);
  }
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const protocol = envOptionalString(env, name);
    if (protocol !== undefined && protocol !== SUPPORTED_PROTOCOL) {
      throw new ConfigError(name, `must be ${SUPPORTED_PROTOCOL}, got "${protocol}"`);
    }
  }
  const disabled = envBool(env, "OTEL_SDK_DISABLED", false);
  const propagatorsSet = envOptionalString(env, "OTEL_PROPAGATORS") !== undefined;
  const propagators = readPropagators(env);
  return Object.freeze({
    mode:
      disabled || propagators.length === 0
        ? "off"
        : endpoint !== undefined && exporter === "otlp"
          ? "export"
          : propagatorsSet
            ? "propagate"
            : "off",
    propagators: Object.freeze(propagators),
    serviceName: envOptionalString(env, "OTEL_SERVICE_NAME") ?? processName,
    resourceAttributes: Object.freeze(
      parseResourceAttributes(envOptionalString(env, "OTEL_RESOURCE_ATTRIBUTES")),
    ),
    sampler: readSampler(env),
    batch: Object.freeze({
      scheduledDelayMillis: envInt(env, "OTEL_BSP_SCHEDULE_DELAY", 5000, { min: 1, max: 600_000 }),
      maxQueueSize: envInt(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048, { min: 1, max: 1_000_000 }),
      maxExportBatchSize: envInt(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, {
        min: 1,
        max: 1_000_000,
      }),
      exportTimeoutMillis: envInt(env, "OTEL_BSP_EXPORT_TIMEOUT", 30_000, {
        min: 1,
        max: 600_000,
      }),
    }),
  });
}

function readPropagators(env: Env): Propagator[] {
  const names = envList(env, "OTEL_PROPAGATORS", PROPAGATORS);
  if (names.length === 1 && names[0] === "none") return [];
  const known = new Set<string>(PROPAGATORS);
  for (const name of names) {
    if (!known.has(name)) {
      throw new ConfigError("OTEL_PROPAGATORS", `must list tracecontext, baggage or be none`);
    }
  }
  return PROPAGATORS.filter((name) => names.includes(name));
}

function readSampler(env: Env): SamplerSetting {
  const raw = envOptionalString(env, "OTEL_TRACES_SAMPLER") ?? "parentbased_always_on";
  const name = SAMPLERS.find((sampler) => sampler === raw);
  if (!name) {
    throw new ConfigError("OTEL_TRACES_SAMPLER", `must be one of ${SAMPLERS.join(", ")}`);
  }
  const arg = envOptionalString(env, "OTEL_TRACES_SAMPLER_ARG");
  let ratio = 1;
  if (arg !== undefined && name.endsWith("traceidratio")) {
    ratio = Number(arg);
    if (!/^\d*\.?\d+$/.test(arg) || !(ratio >= 0 && ratio <= 1)) {
      throw new ConfigError("OTEL_TRACES_SAMPLER_ARG", `must be a ratio from 0 to 1, got "${arg}"`);
    }
  }
  return Object.freeze({ name, ratio });
}

/** `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage octet rules). */
function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (raw === undefined) return attributes;
  for (const pair of raw.split(",")) {
    if (pair.trim() === "") continue;
    const equals = pair.indexOf("=");
    const key = pair.slice(0, equals).trim();
    if (equals <= 0 || key === "") {
      throw new ConfigError("OTEL_RESOURCE_ATTRIBUTES", `"${pair.trim()}" is not key=value`);
    }
    try {
      attributes[key] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      throw new ConfigError("OTEL_RESOURCE_ATTRIBUTES", `the value of "${key}" is badly encoded`);
    }
  }
  return attributes;
}
