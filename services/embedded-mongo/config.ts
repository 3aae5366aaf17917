/**
 * Configuration of the embedded MongoDB-compatible server, read once from the environment
 * and the command line (`--port`, `--dbpath`, `--host`, which win over the environment).
 */
import path from "node:path";
import { MAX_TIME_MS_LIMIT } from "./operation-deadline.js";
import { parseFailPoints } from "./storage/fail-points.js";
import type { FsyncPolicy } from "./storage/write-ahead-log.js";

export interface EmbeddedMongoConfig {
  port: number;
  host: string;
  /** Host name put in `hello` (hosts/primary/me) and in the connection string. */
  advertisedHost: string;
  dataDir: string;
  replicaSetName: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  compactBytes: number;
  /** First wait before retrying a failed compaction (doubles per failure, up to 5 min). */
  compactRetryMs: number;
  /** Test-only fail points in the compaction path (storage/fail-points.ts); "" in production. */
  testFailPoints: string;
  ttlIntervalMs: number;
  transactionLifetimeMs: number;
  /**
   * The longest one command may compute (its scans, sorts, pipelines, regular expressions), in
   * ms; a client's `maxTimeMS` can only shorten it; 0: no limit but the client's.
   */
  maxTimeMs: number;
  logLevel: string;
  /** Stop when standard input closes (set by the test harness: the server dies with its parent). */
  stopOnStdinClose: boolean;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return n;
}

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument '${arg}'`);
    const eq = arg.indexOf("=");
    if (eq > 0) out[arg.slice(2, eq)] = arg.slice(eq + 1);
    else {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`missing value for ${arg}`);
      out[arg.slice(2)] = value;
      i++;
    }
  }
  return out;
}

function testFailPoints(spec: string): string {
  try {
    parseFailPoints(spec);
  } catch (error) {
    throw new Error(`EMBEDDED_MONGO_TEST_FAILPOINTS: ${(error as Error).message}`);
  }
  return spec;
}

function maxTimeMs(env: NodeJS.ProcessEnv): number {
  const ms = integer(env, "EMBEDDED_MONGO_MAX_TIME_MS", 10_000, 0);
  if (ms > MAX_TIME_MS_LIMIT) {
    throw new Error(`EMBEDDED_MONGO_MAX_TIME_MS must be at most ${MAX_TIME_MS_LIMIT}, got '${ms}'`);
  }
  return ms;
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: string[] = process.argv.slice(2),
  cwd: string = process.cwd(),
): Readonly<EmbeddedMongoConfig> {
  const args = parseArgs(argv);
  for (const key of Object.keys(args)) {
    if (!["port", "dbpath", "host"].includes(key)) throw new Error(`unknown option --${key}`);
  }
  const port =
    args.port !== undefined ? Number(args.port) : integer(env, "EMBEDDED_MONGO_PORT", 27117);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid port '${args.port}'`);
  const host = args.host ?? env.EMBEDDED_MONGO_HOST ?? "127.0.0.1";
  const wildcard = host === "0.0.0.0" || host === "::";
  const fsync = env.EMBEDDED_MONGO_FSYNC ?? "interval";
  if (fsync !== "interval" && fsync !== "always") {
    throw new Error(`EMBEDDED_MONGO_FSYNC must be 'interval' or 'always', got '${fsync}'`);
  }
  return Object.freeze({
    port,
    host,
    advertisedHost: env.EMBEDDED_MONGO_ADVERTISED_HOST ?? (wildcard ? "127.0.0.1" : host),
    dataDir: path.resolve(cwd, args.dbpath ?? env.EMBEDDED_MONGO_DATA_DIR ?? ".data/mongo"),
    replicaSetName: env.EMBEDDED_MONGO_REPLICA_SET ?? "rs0",
    fsync,
    fsyncIntervalMs: integer(env, "EMBEDDED_MONGO_FSYNC_INTERVAL_MS", 100, 1),
    compactBytes: integer(env, "EMBEDDED_MONGO_COMPACT_BYTES", 64 * 1024 * 1024, 1024),
    compactRetryMs: integer(env, "EMBEDDED_MONGO_COMPACT_RETRY_MS", 1000, 1),
    testFailPoints: testFailPoints(env.EMBEDDED_MONGO_TEST_FAILPOINTS ?? ""),
    ttlIntervalMs: integer(env, "EMBEDDED_MONGO_TTL_INTERVAL_MS", 60_000, 10),
    transactionLifetimeMs: integer(env, "EMBEDDED_MONGO_TRANSACTION_LIFETIME_MS", 60_000, 100),
    maxTimeMs: maxTimeMs(env),
    logLevel: env.EMBEDDED_MONGO_LOG_LEVEL ?? "info",
    stopOnStdinClose: env.EMBEDDED_MONGO_STOP_ON_STDIN_CLOSE === "1",
  });
}
