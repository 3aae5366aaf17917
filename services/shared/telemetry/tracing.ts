import { randomUUID } from "node:crypto";
import {
  type TracerProvider as ApiTracerProvider,
  context,
  DiagLogLevel,
  diag,
  propagation,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import type { Sampler, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Logger } from "../logging/logger.js";
import { setClientTracing } from "./client-tracing.js";
import type { SamplerSetting, TelemetryConfig } from "./config.js";
import { clientTracingInterceptor } from "./rpc-tracing.js";

/** What a process holds while tracing: flush and stop it last, after its final spans. */
export interface Tracing {
  readonly mode: TelemetryConfig["mode"];
  /** The SDK's provider, in `export` mode: for instrumentations made before it existed. */
  readonly tracerProvider: ApiTracerProvider | undefined;
  shutdown(): Promise<void>;
}

const SERVICE_NAMESPACE = "movement-detection";
/** An unreachable collector must not flood the log: one line per kind of problem per minute. */
const DIAG_REPEAT_MS = 60_000;

let active: Tracing | undefined;

/**
 * Installs this process's tracing (once): in `export` and `propagate` modes the W3C propagators
 * and an AsyncLocalStorage context manager; in `export` mode also the SDK's tracer
 * provider with the configured sampler and a batch processor sending OTLP/HTTP protobuf. The OTLP
 * exporter reads its transport settings (endpoint, headers, timeout, compression, certificates)
 * from the standard OTEL_EXPORTER_OTLP_* variables itself. The SDK and the exporter are loaded
 * only in `export` mode: a process that does not export does not pay for loading them.
 */
export async function startTracing(
  config: TelemetryConfig,
  options: { environment: string; logger: Logger },
): Promise<Tracing> {
  if (active) return active;
  if (config.mode === "off") {
    active = { mode: "off", tracerProvider: undefined, shutdown: async () => undefined };
    return active;
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: config.propagators.map((name) =>
        name === "tracecontext" ? new W3CTraceContextPropagator() : new W3CBaggagePropagator(),
      ),
    }),
  );
  let provider: TracerProvider | undefined;
  if (config.mode === "export") {
    diag.setLogger(diagToLogger(options.logger), DiagLogLevel.WARN);
    provider = await exportingProvider(config, options.environment);
    trace.setGlobalTracerProvider(provider);
  }
  setClientTracing(clientTracingInterceptor());
  const started: Tracing = {
    mode: config.mode,
    tracerProvider: provider,
    async shutdown() {
      // Flushes what is still queued (bounded by the export timeout), then forgets the globals.
      await provider?.shutdown().catch(() => undefined);
      setClientTracing(undefined);
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

async function exportingProvider(
  config: TelemetryConfig,
  environment: string,
): Promise<TracerProvider> {
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/resources"),
  ]);
  const attributes = config.resourceAttributes;
  return new sdk.TracerProvider({
    sampler: samplerOf(sdk, config.sampler),
    resource: resourceFromAttributes({
      ...attributes,
      "service.name": config.serviceName,
      "service.namespace": attributes["service.namespace"] ?? SERVICE_NAMESPACE,
      "service.instance.id": attributes["service.instance.id"] ?? randomUUID(),
      "deployment.environment.name": attributes["deployment.environment.name"] ?? environment,
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...config.batch }),
    ],
  });
}

function samplerOf(
  sdk: typeof import("@opentelemetry/sdk-trace"),
  setting: SamplerSetting,
): Sampler {
  switch (setting.name) {
    case "always_on":
      return new sdk.AlwaysOnSampler();
    case "always_off":
      return new sdk.AlwaysOffSampler();
    case "traceidratio":
      return new sdk.TraceIdRatioBasedSampler(setting.ratio);
    case "parentbased_always_on":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    case "parentbased_always_off":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new sdk.ParentBasedSampler({
        root: new sdk.TraceIdRatioBasedSampler(setting.ratio),
      });
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
