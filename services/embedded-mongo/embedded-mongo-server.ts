/**
 * The embedded MongoDB-compatible server as a factory: nothing happens until `start()`,
 * which makes the data directory private (0700, files 0600), recovers it, loads (or at the
 * first start creates) the store's user, then listens. Every client must authenticate
 * (SCRAM-SHA-256). `stop()` stops accepting connections, lets in-flight commands finish,
 * flushes the log and releases the data directory lock.
 */
import net from "node:net";
import { type Logger, pino } from "pino";
import type { ServerIdentity } from "./commands/command-context.js";
import { createDispatcher } from "./commands/dispatcher.js";
import type { EmbeddedMongoConfig } from "./config.js";
import { CursorRegistry } from "./cursor-registry.js";
import { secureDataDirectory } from "./security/data-directory.js";
import { openUserRegistry } from "./security/user-registry.js";
import { SessionRegistry } from "./sessions/session-registry.js";
import { parseFailPoints } from "./storage/fail-points.js";
import { type DirLock, holdDataDirectory } from "./storage/lock-file.js";
import { StorageEngine } from "./storage/storage-engine.js";
import { startTtlMonitor } from "./ttl-monitor.js";
import { Connection } from "./wire/connection.js";

export interface EmbeddedMongoServerOptions extends Partial<EmbeddedMongoConfig> {
  dataDir: string;
  logger?: Logger;
}

export interface EmbeddedMongoAddress {
  port: number;
  /** The connection string without credentials (safe to log): clients add them. */
  uri: string;
  /** The clients' copy of the credentials (0600): `withCredentials(uri, readClientCredentials(file))`. */
  credentialsFile: string;
}

export interface EmbeddedMongoServer {
  start(): Promise<EmbeddedMongoAddress>;
  stop(): Promise<void>;
  /** Runs the TTL monitor once now (tests); resolves to the number of documents deleted. */
  sweepExpired(): Promise<number>;
}

const STOP_GRACE_MS = 5_000;

export function createEmbeddedMongoServer(
  options: EmbeddedMongoServerOptions,
): EmbeddedMongoServer {
  const config = {
    port: 0,
    host: "127.0.0.1",
    replicaSetName: "rs0",
    fsync: "interval" as const,
    fsyncIntervalMs: 100,
    compactBytes: 64 * 1024 * 1024,
    compactRetryMs: 1000,
    testFailPoints: "",
    ttlIntervalMs: 60_000,
    transactionLifetimeMs: 60_000,
    maxTimeMs: 10_000,
    ...options,
  };
  const logger = options.logger ?? pino({ level: options.logLevel ?? "silent" });
  let engine: StorageEngine | undefined;
  let sessions: SessionRegistry | undefined;
  let cursors: CursorRegistry | undefined;
  let ttl: ReturnType<typeof startTtlMonitor> | undefined;
  let server: net.Server | undefined;
  const connections = new Set<Connection>();
  const idleWaiters = new Set<() => void>();
  let stopping: Promise<void> | undefined;
  /** The kernel's hold on the data directory (storage/lock-file.ts), before the engine opens it. */
  let directoryGuard: DirLock | undefined;
  const releaseDirectory = () => {
    directoryGuard?.release();
    directoryGuard = undefined;
  };

  async function start(): Promise<EmbeddedMongoAddress> {
    if (server) throw new Error("server already started");
    secureDataDirectory(config.dataDir, logger);
    directoryGuard = await holdDataDirectory(config.dataDir);
    try {
      engine = StorageEngine.open({
        dataDir: config.dataDir,
        fsync: config.fsync,
        fsyncIntervalMs: config.fsyncIntervalMs,
        compactBytes: config.compactBytes,
        compactRetryMs: config.compactRetryMs,
        failPoints: parseFailPoints(config.testFailPoints),
        logger,
      });
    } catch (error) {
      releaseDirectory();
      throw error;
    }
    sessions = new SessionRegistry(engine, logger, {
      transactionLifetimeMs: config.transactionLifetimeMs,
      sessionTimeoutMs: 30 * 60 * 1000,
    });
    let users: ReturnType<typeof openUserRegistry>;
    try {
      users = openUserRegistry(config.dataDir, logger);
    } catch (error) {
      await shutdownState();
      throw error;
    }
    cursors = new CursorRegistry();
    ttl = startTtlMonitor(engine, sessions.locks, config.ttlIntervalMs, logger);
    const identity: ServerIdentity = {
      address: "",
      replicaSetName: config.replicaSetName,
      startedAt: new Date(),
    };
    const dispatcher = createDispatcher({
      engine,
      sessions,
      cursors,
      identity,
      users: users.registry,
      logger,
      maxTimeMs: config.maxTimeMs,
    });
    let nextConnectionId = 1;
    const srv = net.createServer((socket) => {
      if (stopping) {
        socket.destroy();
        return;
      }
      const connection = new Connection(nextConnectionId++, socket, dispatcher, logger, {
        onIdle: () => {
          for (const resolve of idleWaiters) resolve();
        },
      });
      connections.add(connection);
      socket.on("close", () => connections.delete(connection));
    });
    server = srv;
    try {
      await new Promise<void>((resolve, reject) => {
        srv.once("error", reject);
        srv.listen(config.port, config.host, () => {
          srv.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      server = undefined;
      await shutdownState();
      throw error;
    }
    const port = (srv.address() as net.AddressInfo).port;
    if (!["127.0.0.1", "::1", "localhost"].includes(config.host)) {
      logger.warn(
        { host: config.host, port },
        "listening beyond loopback: anyone who reaches this port can try the store's password",
      );
    }
    const host =
      config.advertisedHost ??
      (config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host);
    identity.address = `${host}:${port}`;
    const uri = `mongodb://${host}:${port}/?replicaSet=${encodeURIComponent(config.replicaSetName)}`;
    return { port, uri, credentialsFile: users.credentialsFile };
  }

  async function shutdownState(): Promise<void> {
    await ttl?.stop();
    sessions?.close();
    cursors?.close();
    await engine?.close();
    engine = undefined;
    releaseDirectory();
  }

  async function waitForIdle(): Promise<void> {
    const deadline = Date.now() + STOP_GRACE_MS;
    while ([...connections].some((c) => c.busy) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          idleWaiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, 50);
        idleWaiters.add(done);
      });
    }
  }

  function stop(): Promise<void> {
    if (!server) return Promise.resolve();
    if (!stopping) {
      const srv = server;
      stopping = (async () => {
        const closed = new Promise<void>((resolve) => srv.close(() => resolve()));
        await waitForIdle();
        for (const c of connections) c.close();
        await closed;
        await shutdownState();
        server = undefined;
      })();
    }
    return stopping;
  }

  return {
    start,
    stop,
    sweepExpired: () => (ttl ? ttl.sweep() : Promise.resolve(0)),
  };
}
