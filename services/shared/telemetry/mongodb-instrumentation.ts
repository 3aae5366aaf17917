import { MongoDBInstrumentation } from "@opentelemetry/instrumentation-mongodb";

/**
 * Spans for every MongoDB command, from OpenTelemetry's own instrumentation of the driver (it
 * supports driver versions 4 to 7, this project's 7 included). It patches the driver's connection
 * as the driver's files load, so it must exist before anything imports `mongodb`: each service's
 * main.ts imports this module first (a side-effect import, which Biome's import sorting leaves in
 * place). It works the same under tsx and in the compiled image: the driver is CommonJS, and its
 * internal `require`s go through the hook even when our ESM code imports it.
 *
 * Spans are only made under a parent (a traced RPC), so the services' background work (sweeps,
 * presence) adds none; tracing off (see tracing.ts) unpatches the driver again.
 */
export const mongodbInstrumentation = new MongoDBInstrumentation({ requireParentSpan: true });

/** Leaves the driver as it was: nothing of the instrumentation runs on a database call. */
export function disableMongodbInstrumentation(): void {
  mongodbInstrumentation.disable();
}
