import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogLine } from "../../deploy/local/child-process.js";
import { type ServiceName, type Stack, startStack } from "../../deploy/local/stack.js";
import { compiledTree } from "./compiled-tree.js";
import { checkResponsesOf } from "./contract.js";

export interface TestSystem extends Stack {
  /** The temporary directory of this system (store data in mongo/, certificates in pki/). */
  readonly root: string;
  /** Every log line every process wrote, in order, tagged with the process name. */
  readonly logs: { name: string; line: LogLine | string }[];
  /** Log lines (JSON only) of one process. */
  logsOf(name: string): LogLine[];
}

export interface TestSystemOptions {
  readonly env?: Record<string, string>;
  readonly serviceEnv?: Partial<Record<ServiceName | "gateway", Record<string, string>>>;
  readonly detectionReplicas?: number;
  /** A store the test runs itself (to kill and restart it); default: a fresh embedded one. */
  readonly mongodbUri?: string;
  /** As npm start: a development key on the empty database, in `devCredentials`. */
  readonly devBootstrap?: boolean;
  /** How long each process may take to serve (default 60 s: a busy 2-core machine). */
  readonly startTimeoutMs?: number;
}

/**
 * The whole system for a test suite: the embedded store on a fresh data directory (or the real
 * MongoDB at MONGODB_URI), the four services and the gateway, all on free ports. Set TEST_LOGS=1
 * to see their logs. Always `await system.stop()` in `after`.
 */
export async function startTestSystem(options: TestSystemOptions = {}): Promise<TestSystem> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      // Free ports are chosen outside the kernel's ephemeral range (deploy/local/free-port.ts),
      // but another program can still bind one before its process does. That start is thrown
      // away, not the test.
      if (attempt < PORT_RACE_ATTEMPTS && (error as StartFailure).portTaken) continue;
      throw error;
    }
  }
}

const PORT_RACE_ATTEMPTS = 3;

interface StartFailure extends Error {
  portTaken?: boolean;
}

async function startOnce(options: TestSystemOptions): Promise<TestSystem> {
  const logs: { name: string; line: LogLine | string }[] = [];
  const echo = process.env.TEST_LOGS === "1";
  const externalUri = options.mongodbUri ?? (process.env.MONGODB_URI || undefined);
  // One temporary directory per system: the store's files in mongo/, the CA and the workload
  // certificates in pki/ (as npm start keeps them in .data).
  const root = await mkdtemp(join(tmpdir(), "mds-test-"));
  const dataDir = externalUri ? undefined : join(root, "mongo");
  const stack = await startStack({
    mongodbUri: externalUri,
    dataDir,
    stateDir: root,
    ports: "ephemeral",
    env: { LOG_LEVEL: "debug", ...options.env },
    serviceEnv: {
      ...options.serviceEnv,
      ...(externalUri ? uniqueDatabases(options.serviceEnv) : {}),
    },
    detectionReplicas: options.detectionReplicas,
    devBootstrap: options.devBootstrap,
    compiledRoot: await compiledTree(),
    // Four services starting at once on a busy 2-core machine: npm start's default, said here.
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    sink: (name, line) => {
      logs.push({ name, line });
      if (echo)
        process.stderr.write(
          `[${name}] ${typeof line === "string" ? line : JSON.stringify(line)}\n`,
        );
    },
  }).catch(async (error: StartFailure) => {
    await rm(root, { recursive: true, force: true });
    error.portTaken = logs.some(({ line }) =>
      (typeof line === "string" ? line : JSON.stringify(line)).includes("EADDRINUSE"),
    );
    throw error;
  });
  // Every response of this gateway is checked against the OpenAPI document (./contract.ts).
  const stopChecking = checkResponsesOf(stack.gatewayUrl);
  return {
    ...stack,
    root,
    logs,
    logsOf: (name) =>
      logs
        .filter((entry) => entry.name === name && typeof entry.line === "object")
        .map((entry) => entry.line as LogLine),
    async stop() {
      stopChecking();
      await stack.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Against a shared real MongoDB, each test system gets databases of its own. */
function uniqueDatabases(
  serviceEnv: TestSystemOptions["serviceEnv"] = {},
): NonNullable<TestSystemOptions["serviceEnv"]> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const result: NonNullable<TestSystemOptions["serviceEnv"]> = {};
  for (const name of ["auth", "catalogue", "authoring", "detection"] as const) {
    result[name] = { MONGODB_DATABASE: `mds_${name}_${suffix}`, ...serviceEnv[name] };
  }
  return result;
}
