/**
 * `npm start`: the whole system on this machine. The embedded store (unless MONGODB_URI is set),
 * the four services and the gateway, each its own process on its own port, logs prefixed by name.
 * Ctrl-C or SIGTERM stops everything in order (gateway, services, store). A child that dies on its
 * own is logged with its last lines and restarted with backoff; one that keeps crashing stops
 * everything, and `npm start` exits 1.
 */

import { DEV_CREDENTIALS_MESSAGE } from "../../services/auth/operations/dev-bootstrap.js";
import type { LogLine } from "./child-process.js";
import { loadLauncherConfig } from "./config.js";
import { createPrettyPrinter } from "./pretty-log.js";
import { type Stack, startStack } from "./stack.js";

const config = loadLauncherConfig(process.env);
const print = createPrettyPrinter(process.stdout.isTTY === true);
let stack: Stack | undefined;
let stopping = false;
// Logged once by auth when DEV_BOOTSTRAP creates the development key on an empty database.
let devCredentials: LogLine | undefined;

const stop = async (reason: string, exitCode = 0) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\nstopping (${reason})...\n`);
  await stack?.stop();
  process.stdout.write("stopped.\n");
  process.exit(exitCode);
};
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

try {
  stack = await startStack({
    mongodbUri: config.mongodbUri,
    dataDir: config.dataDir,
    ports: config.ports,
    devBootstrap: true,
    restart: config.restart,
    onGiveUp: (name) => void stop(`${name} keeps crashing`, 1),
    sink: (name, line) => {
      if (name === "auth" && typeof line === "object" && line.msg === DEV_CREDENTIALS_MESSAGE) {
        devCredentials = line;
      }
      if (!stopping || typeof line !== "string") process.stdout.write(`${print(name, line)}\n`);
    },
  });
  if (stopping) await stack.stop();
  process.stdout.write(
    [
      "",
      `  Gateway ready: ${stack.gatewayUrl}`,
      `  Try:           curl ${stack.gatewayUrl}/api/health`,
      `  Store:         ${stack.mongodbUri}`,
      "  Stop:          Ctrl-C",
      "",
      ...(devCredentials ? developmentKeyBanner(stack.gatewayUrl, devCredentials) : []),
      "",
    ].join("\n"),
  );
} catch (error) {
  process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await stack?.stop();
  process.exit(1);
}

/** Shown once, on the first start with an empty data directory: the key is not stored anywhere. */
function developmentKeyBanner(gatewayUrl: string, line: LogLine): string[] {
  const body = JSON.stringify({ api_key: line.api_key });
  return [
    "  ==================== development API key (shown once) ====================",
    `  Project:  ${line.project_id} (organization ${line.organization_id})`,
    `  API key:  ${line.api_key}`,
    "  Mint an access token:",
    `    curl -s -X POST ${gatewayUrl}/api/auth/access-tokens -H 'Content-Type: application/json' -d '${body}'`,
    "  Save the key now: later starts do not print it again.",
    "  ===========================================================================",
    "",
  ];
}
