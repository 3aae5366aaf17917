import { randomUUID } from "node:crypto";
import { context, DiagLogLevel, diag, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  ATTR_DEPLOYMENT_ENVIRONMENT_NAME,
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_NAMESPACE,
} from "@opentelemetry/semantic-conventions";
import type { Logger } from "../logging/logger.js";
import type { SamplerSetting, TelemetryConfig } from "./config.js";

/** What a process holds while tracing: flush and stop it last, after its final spans. */
export interface Tracing {
  readonly mode: TelemetryConfig["mode"];
  shutdown(): Promise<void>;
}

const SERVICE_NAMESPACE = "movement-detection";
/** An unreachable collector must not flood the log: one line per kind of problem per minute. */
const DIAG_REPEAT_MS = 60_000;

let active: Tracing | undefined;

/**
 * Installs this process's tracing (once): in `export` and `propagate` modes the W3C trace-context
 * propagator and an AsyncLocalStorage context manager; in `export` mode also the SDK's tracer
 * provider with the configured sampler and a batch processor sending OTLP/HTTP protobuf. The OTLP
 * exporter reads its transport settings (endpoint, headers, timeout, compression, certificates)
 * from the standard OTEL_EXPORTER_OTLP_* variables itself.
 */
export function startTracing(
  config: TelemetryConfig,
  options: { environment: string; logger: Logger },
): Tracing {
  if (active) return active;
  if (config.mode === "disabled") {
    active = { mode: "disabled", shutdown: async () => undefined };
    return active;
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  let provider: TracerProvider | undefined;
  if (config.mode === "export") {
    diag.setLogger(diagToLogger(options.logger), DiagLogLevel.WARN);
    provider = new TracerProvider({
      sampler: samplerOf(config.sampler),
      resource: resourceFromAttributes({
        ...config.resourceAttributes,
        [ATTR_SERVICE_NAME]: config.serviceName,
        [ATTR_SERVICE_NAMESPACE]:
          config.resourceAttributes[ATTR_SERVICE_NAMESPACE] ?? SERVICE_NAMESPACE,
        [ATTR_SERVICE_INSTANCE_ID]:
          config.resourceAttributes[ATTR_SERVICE_INSTANCE_ID] ?? randomUUID(),
        [ATTR_DEPLOYMENT_ENVIRONMENT_NAME]:
          config.resourceAttributes[ATTR_DEPLOYMENT_ENVIRONMENT_NAME] ?? options.environment,
      }),
      spanProcessors: [
        new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...config.batch }),
      ],
    });
    trace.setGlobalTracerProvider(provider);
  }
  const mode = config.mode;
  const started: Tracing = {
    mode,
    async shutdown() {
      // Flushes what is still queued (bounded by the export timeout), then forgets the globals.
      await provider?.shutdown().catch(() => undefined);
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
      active = undefined;
    },
  };
  active = started;
  return started;
}

function samplerOf(setting: SamplerSetting): Sampler {
  switch (setting.name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(setting.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
  }
}

/** OpenTelemetry's own warnings (an export that failed, a full queue) as our log lines. */
function diagToLogger(logger: Logger) {
  const lastSaid = new Map<string, number>();
  const say = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now - (lastSaid.get(message) ?? -Infinity) < DIAG_REPEAT_MS) return;
    lastSaid.set(message, now);
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(" ");
    logger.warn({ detail: detail || undefined }, `tracing: ${message}`);
  };
  const quiet = () => undefined;
  return { error: say, warn: say, info: quiet, debug: quiet, verbose: quiet };
}
