/**
 * Starts the embedded MongoDB-compatible server as a child process for tests:
 *
 *   const mongo = await startEmbeddedMongo();      // port 0, fresh temp data dir
 *   const client = new MongoClient(mongo.uri);      // carries the store's credentials
 *   ...
 *   await mongo.stop();                             // SIGTERM, waits for exit
 *
 * When MONGODB_URI is set, no process is spawned: the URI is returned as is (so the same
 * suites run against a real MongoDB), `stop()` does nothing and `kill()` rejects.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";
import { compiledTree } from "./compiled-tree.js";

export interface EmbeddedMongoHandle {
  /** The connection string with the store's credentials (SCRAM-SHA-256, authSource=admin). */
  uri: string;
  /** The same without credentials, as the server logs it: a client using it is refused. */
  plainUri: string;
  /** The store's 0600 credentials file (empty for an external MongoDB). */
  credentialsFile: string;
  port: number;
  dataDir: string;
  /** SIGTERM and wait for a clean exit; removes the data dir if it was created here. */
  stop(): Promise<void>;
  /** Send a signal (default SIGKILL) and wait for the process to exit; keeps the data dir. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Everything the server wrote on stdout and stderr so far (empty for an external MongoDB). */
  output(): string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const mainScript = path.join(repoRoot, "services/embedded-mongo/main.ts");
const READY_TIMEOUT_MS = 20_000;

export interface StartEmbeddedMongoOptions {
  dataDir?: string;
  port?: number;
  /** Extra environment for the server process (e.g. EMBEDDED_MONGO_COMPACT_BYTES). */
  env?: Record<string, string>;
}

export async function startEmbeddedMongo(
  options: StartEmbeddedMongoOptions = {},
): Promise<EmbeddedMongoHandle> {
  const external = process.env.MONGODB_URI;
  if (external) {
    const port = Number(
      /:(\d+)/.exec(external.replace(/^mongodb(\+srv)?:\/\/[^@]*@/, "mongodb://"))?.[1] ?? 27017,
    );
    return {
      uri: external,
      plainUri: external,
      credentialsFile: "",
      port,
      dataDir: "",
      stop: async () => {},
      kill: async () => {
        throw new Error("cannot kill an external MongoDB (MONGODB_URI is set)");
      },
      output: () => "",
    };
  }
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-"));
  // The compiled tree's store (./compiled-tree.ts) when there is one: it serves in half the time.
  const tree = await compiledTree();
  const script = tree
    ? [path.join(tree, "services/embedded-mongo/main.js")]
    : ["--import", "tsx", mainScript];
  const child = spawn(
    process.execPath,
    [...script, "--port", String(options.port ?? 0), "--dbpath", dataDir],
    {
      cwd: repoRoot,
      // stdin stays open while this process lives: the server stops if we die without stop().
      stdio: ["pipe", "pipe", "pipe"],
      env: {
        ...process.env,
        ...options.env,
        EMBEDDED_MONGO_LOG_LEVEL:
          options.env?.EMBEDDED_MONGO_LOG_LEVEL ?? process.env.EMBEDDED_MONGO_LOG_LEVEL ?? "info",
        EMBEDDED_MONGO_STOP_ON_STDIN_CLOSE: "1",
      },
    },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const output: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  let ready: Ready;
  try {
    ready = await waitForReady(child, exited);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    if (ownsDir) fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // Keep draining output so the child never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  let stopped = false;
  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    uri: authenticatedUri(ready),
    plainUri: ready.uri,
    credentialsFile: ready.credentialsFile,
    port: ready.port,
    dataDir,
    async stop() {
      await terminate("SIGTERM");
      if (ownsDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
    kill: (signal: NodeJS.Signals = "SIGKILL") => terminate(signal),
    output: () => Buffer.concat(output).toString("utf8"),
  };
}

interface Ready {
  port: number;
  uri: string;
  credentialsFile: string;
}

function waitForReady(child: ChildProcess, exited: Promise<number | null>): Promise<Ready> {
  return new Promise((resolve, reject) => {
    let pending = "";
    const output: string[] = [];
    const timer = setTimeout(() => {
      reject(
        new Error(
          `embedded mongo did not become ready in ${READY_TIMEOUT_MS} ms:\n${output.join("")}`,
        ),
      );
    }, READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString("utf8");
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        output.push(`${line}\n`);
        if (line.includes('"msg":"ready"')) {
          try {
            const parsed = JSON.parse(line) as Ready;
            clearTimeout(timer);
            child.stdout?.off("data", onData);
            const { port, uri, credentialsFile } = parsed;
            resolve({ port, uri, credentialsFile });
            return;
          } catch {
            // not our line; keep reading
          }
        }
        newline = pending.indexOf("\n");
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `embedded mongo exited with code ${code} before it was ready:\n${output.join("")}`,
        ),
      );
    });
  });
}
