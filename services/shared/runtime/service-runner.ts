import { setMaxListeners } from "node:events";
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import type { Db, MongoClient } from "mongodb";
import type { ServiceConfig } from "../config/service-config.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { logProcessWarnings } from "../logging/process-warnings.js";
import { createAdminServer } from "../process/admin-server.js";
import { onShutdownRequest } from "../process/supervision.js";
import { authorizationInterceptor } from "../security/authorization-interceptor.js";
import { PLAINTEXT_WARNING } from "../security/internal-security-config.js";
import { type InternalIdentity, loadInternalIdentity } from "../security/internal-transport.js";
import { observeStoreOperations } from "../store/store-timing.js";
import { mongodbInstrumentation } from "../telemetry/mongodb-preload.js";
import { serverTracingInterceptor } from "../telemetry/rpc-tracing.js";
import { startTracing } from "../telemetry/tracing.js";
import type { TokenVerifier } from "../tokens/index.js";
import { type DatabaseWatch, watchDatabase } from "./database-readiness.js";
import { createGrpcServer } from "./grpc-server.js";
import { createHealthService, HealthState, ServingStatus } from "./health.js";
import { type InFlight, observeInterceptor, requestContextInterceptor } from "./interceptors.js";
import { createServiceMetrics, type ServiceMetrics } from "./metrics.js";
import { connectMongo } from "./mongo.js";
import { registerReflection } from "./reflection.js";

/** What a service hands the runtime: its gRPC services and how to start them on a database. */
export interface ServiceDefinition<C extends ServiceConfig> {
  readonly name: string;
  readonly services: readonly DescService[];
  start(context: ServiceContext<C>): Promise<StartedService>;
}

export interface ServiceContext<C extends ServiceConfig> {
  readonly config: C;
  readonly db: Db;
  readonly mongo: MongoClient;
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  /** Aborts when the process begins shutting down: long-running work should wind down. */
  readonly shutdownSignal: AbortSignal;
  /** This process's workload identity: build transports to other services with it. */
  readonly identity: InternalIdentity;
}

export interface StartedService {
  register(router: ConnectRouter): void;
  /**
   * Verifies the user access tokens callers forward (methods whose access rule names a user);
   * a service without such methods leaves it out.
   */
  readonly userTokens?: TokenVerifier;
  /** Runs after in-flight calls ended and before the database closes. */
  stop?(): Promise<void>;
}

export interface RunningService {
  readonly grpcPort: number;
  readonly adminPort: number;
  readonly logger: Logger;
  /** Resolves once the database answered and the service serves (NOT_SERVING until then). */
  readonly serving: Promise<void>;
  stop(): Promise<void>;
}

/** The start-up work's last failure while it is retried, as /readyz?verbose reports it. */
interface StartupFailure {
  readonly error: string;
  readonly attempts: number;
  /** The first failure of this run of failures. */
  readonly since: string;
  readonly retry_in_ms: number;
}

/** How often a serving service pings its database (readiness follows it). */
const READINESS_INTERVAL_MS = 1000;

export async function runService<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  config: C,
): Promise<RunningService> {
  const logger = createLogger({ service: definition.name, level: config.logLevel });
  const tracing = await startTracing(config.telemetry, {
    environment: config.environment,
    logger,
  });
  if (tracing.tracerProvider) mongodbInstrumentation?.setTracerProvider(tracing.tracerProvider);
  const metrics = createServiceMetrics(definition.name);
  observeStoreOperations((store, operation, seconds, outcome) =>
    metrics.storeSeconds.observe({ store, operation, outcome }, seconds),
  );
  const shutdown = new AbortController();
  // Every open call listens on this signal; many concurrent calls are normal, not a leak.
  setMaxListeners(0, shutdown.signal);
  const inFlight: InFlight = { count: 0, idle: new Set() };
  const health = new HealthState(definition.services.map((service) => service.typeName));
  const identity = loadInternalIdentity(config.security, (error) =>
    logger.warn({ err: error.message }, "internal TLS files not reloaded"),
  );
  if (config.security.transport === "h2c") logger.warn(PLAINTEXT_WARNING);

  let started: StartedService | undefined;
  const grpc = createGrpcServer({
    interceptors: [
      requestContextInterceptor(),
      ...(tracing.mode === "off" ? [] : [serverTracingInterceptor()]),
      observeInterceptor(logger, metrics, inFlight),
      authorizationInterceptor({ logger, userTokens: () => started?.userTokens }),
    ],
    identity,
    shutdownSignal: shutdown.signal,
    alwaysOn: (router) => {
      router.service(Health, createHealthService(health));
      registerReflection(router, [Health, ...definition.services]);
    },
    services: definition.services,
  });
  let database: DatabaseWatch | undefined;
  let phase: "starting" | "serving" | "shutting down" = "starting";
  // Before the readiness watch runs: when the connection answered, or why it does not yet.
  let connection:
    | { readonly up: boolean; readonly since: string; readonly error?: string }
    | undefined;
  // Why the service is not serving yet, for an operator reading /readyz?verbose rather than logs.
  let startupFailure: StartupFailure | undefined;
  const admin = createAdminServer(
    metrics.registry,
    () => health.current === ServingStatus.SERVING,
    () => ({
      phase,
      ...(phase === "starting" && startupFailure ? { startup_failure: startupFailure } : {}),
      dependencies: [
        {
          name: "mongodb",
          ...databaseReport(database?.state ?? connection),
        },
      ],
    }),
  );
  const grpcPort = await grpc.listen(config.grpcPort, config.grpcHost);
  const adminPort = await admin.listen(config.adminPort, config.grpcHost);
  logger.info(
    {
      grpc_port: grpcPort,
      admin_port: adminPort,
      transport: config.security.transport,
      workload: config.security.workload,
    },
    "listening",
  );

  let mongo: MongoClient | undefined;

  const serving = (async () => {
    const connected = await connectMongo(
      {
        uri: config.mongodbUri,
        database: config.mongodbDatabase,
        appName: definition.name,
        timeoutMs: config.mongodbTimeoutMs,
        maxTimeMs: config.mongodbMaxTimeMs,
        logger,
        onAttemptFailed: (error) => {
          connection = { up: false, since: connection?.since ?? new Date().toISOString(), error };
        },
      },
      shutdown.signal,
    );
    if (!connected) return;
    mongo = connected.client;
    connection = { up: true, since: new Date().toISOString() };
    // Start-up work (indexes, mostly) can fail on a slow or briefly unreachable database: retry
    // it as Kubernetes would restart us, but without losing the listening port meanwhile.
    for (let delayMs = 250; !started; delayMs = Math.min(delayMs * 2, 5000)) {
      try {
        started = await definition.start({
          config,
          db: connected.db,
          mongo: connected.client,
          logger,
          metrics,
          shutdownSignal: shutdown.signal,
          identity,
        });
      } catch (error) {
        if (shutdown.signal.aborted) throw error;
        startupFailure = {
          error: error instanceof Error ? error.message : String(error),
          attempts: (startupFailure?.attempts ?? 0) + 1,
          since: startupFailure?.since ?? new Date().toISOString(),
          retry_in_ms: delayMs,
        };
        logger.error({ err: error, retryInMs: delayMs }, "start-up failed, retrying");
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (shutdown.signal.aborted) return;
      }
    }
    grpc.serve((router) => started?.register(router));
    health.set(ServingStatus.SERVING);
    logger.info({ grpc_port: grpcPort, admin_port: adminPort }, "serving");
    phase = "serving";
    database = watchDatabase(connected.db, {
      intervalMs: READINESS_INTERVAL_MS,
      timeoutMs: Math.min(config.mongodbTimeoutMs, 2000),
      logger,
      onChange: (up) => {
        if (!shutdown.signal.aborted) {
          health.set(up ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
        }
      },
    });
  })();
  serving.catch((error) => logger.fatal({ err: error }, "service failed to start"));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ in_flight: inFlight.count }, "shutting down");
      phase = "shutting down";
      health.set(ServingStatus.NOT_SERVING);
      database?.stop();
      shutdown.abort();
      await Promise.all([
        grpc.close(config.shutdownTimeoutMs),
        waitIdle(inFlight, config.shutdownTimeoutMs),
      ]);
      await serving.catch(() => undefined);
      await started?.stop?.();
      await mongo?.close();
      await admin.close();
      identity.tls?.close();
      await tracing.shutdown();
      logger.info("stopped");
    })();
    return stopping;
  };

  return { grpcPort, adminPort, logger, serving, stop };
}

function databaseReport(
  state: { readonly up: boolean; readonly since: string; readonly error?: string } | undefined,
): Record<string, unknown> {
  if (!state) return { status: "UNKNOWN" };
  return { status: state.up ? "SERVING" : "UNREACHABLE", since: state.since, error: state.error };
}

function waitIdle(inFlight: InFlight, deadlineMs: number): Promise<void> {
  if (inFlight.count === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      inFlight.idle.delete(done);
      resolve();
    };
    const timer = setTimeout(done, deadlineMs);
    inFlight.idle.add(done);
  });
}

/**
 * Process entry point shared by every service's main.ts: run, then stop cleanly when asked
 * (exit 0), or exit 1 if the service cannot start.
 */
export async function runServiceProcess<C extends ServiceConfig>(
  definition: ServiceDefinition<C>,
  config: C,
  supervised = false,
): Promise<void> {
  const running = await runService(definition, config);
  logProcessWarnings(running.logger);
  running.serving.catch(async () => {
    await running.stop().catch(() => undefined);
    process.exit(1);
  });
  onShutdownRequest(
    supervised,
    async (reason) => {
      safeLog(() => running.logger.info({ reason }, "stop requested"));
      await running.stop();
    },
    {
      hardDeadlineMs: config.shutdownTimeoutMs + 5000,
      silence: () => {
        running.logger.level = "silent";
      },
    },
  );
}

/** Logging must never stop a shutdown (stdout may be a pipe nobody reads any more). */
function safeLog(write: () => void): void {
  try {
    write();
  } catch {
    // Nowhere left to report it.
  }
}
