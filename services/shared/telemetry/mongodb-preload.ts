import { createRequire } from "node:module";
import { readTelemetryConfig } from "./config.js";

/**
 * Spans for every MongoDB command, from OpenTelemetry's own instrumentation of the driver (it
 * supports driver versions 4 to 7, this project's 7 included). It patches the driver's connection
 * as the driver's files load, so it must exist before anything imports `mongodb`: each service's
 * main.ts imports this module first (a side-effect import, which Biome's import sorting leaves in
 * place). It works the same under tsx and in the compiled image: the driver is CommonJS, and its
 * internal `require`s go through the instrumentation's hook even when our ESM code imports it.
 *
 * Loaded only when spans are exported (a synchronous `require`: an `await import` here would not
 * hold back the modules imported after this one), so a process that does not trace pays nothing,
 * not even the load. It runs with the CommonJS copy of @opentelemetry/api, which shares the ESM
 * copy's context (the API keeps its globals on globalThis) but took its tracer before any provider
 * existed: the runtime hands it the SDK's provider once tracing starts (service-runner.ts). Spans
 * are only made under a parent (a traced RPC or stream attach): background work makes none.
 */
export const mongodbInstrumentation =
  readTelemetryConfig(process.env, "service").mode === "export" ? instrument() : undefined;

function instrument() {
  const require = createRequire(import.meta.url);
  const { MongoDBInstrumentation } =
    require("@opentelemetry/instrumentation-mongodb") as typeof import("@opentelemetry/instrumentation-mongodb");
  return new MongoDBInstrumentation({ requireParentSpan: true });
}
