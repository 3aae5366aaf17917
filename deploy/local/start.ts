/**
 * `npm start`: the whole system on this machine. The embedded store (unless MONGODB_URI is set),
 * the four services and the gateway, each its own process on its own port, logs prefixed by name.
 * Ctrl-C or SIGTERM stops everything in order (gateway, services, store). A child that dies on its
 * own is logged with its last lines and restarted with backoff; one that keeps crashing stops
 * everything, and `npm start` exits 1.
 */

import { join, resolve } from "node:path";
import { ConfigError } from "@movement-detection/shared/config";
import { LOCAL_PKI_DIR } from "@movement-detection/shared/security";
import type { DevCredentials } from "../../services/auth/operations/dev-bootstrap.js";
import { redactUri } from "../../services/embedded-mongo/security/client-credentials.js";
import { type LauncherConfig, loadLauncherConfig } from "./config.js";
import { createPrettyPrinter } from "./pretty-log.js";
import { type Stack, startStack } from "./stack.js";

const config = loadConfigOrExit();
const print = createPrettyPrinter(process.stdout.isTTY === true);
let stack: Stack | undefined;
let gaveUp: string | undefined;
let stopping = false;

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
    stateDir: config.stateDir,
    ports: config.ports,
    gatewayHost: config.gatewayHost,
    devBootstrap: true,
    restart: config.restart,
    controlPlaneNiceness: config.controlPlaneNiceness,
    // A child that dies before it is ready fails the start itself, which then says why (below).
    onGiveUp: (name) => {
      if (stack) void stop(`${name} keeps crashing`, 1);
      else gaveUp ??= name;
    },
    sink: (name, line) => {
      if (!stopping || typeof line !== "string") process.stdout.write(`${print(name, line)}\n`);
    },
  });
  if (gaveUp) await stop(`${gaveUp} keeps crashing`, 1);
  if (stopping) await stack.stop();
  const studio = await studioUrl(stack.gatewayUrl);
  process.stdout.write(
    [
      "",
      `  Gateway ready: ${stack.gatewayUrl}`,
      `  Try:           curl ${stack.gatewayUrl}/api/health`,
      ...(studio ? [`  Studio:        ${studio}  (sign in with ${keyHint(stack)})`] : []),
      `  API docs:      ${stack.gatewayUrl}/docs`,
      `  Store:         ${redactUri(stack.mongodbUri)}`,
      ...(stack.storeCredentialsFile
        ? [`                 (user and password: ${stack.storeCredentialsFile}, mode 0600)`]
        : []),
      `  Admin tool:    ${adminEnvironment(stack)} npm run admin -- --help`,
      "  Stop:          Ctrl-C",
      "",
      ...(stack.devCredentials ? developmentKeyBanner(stack.gatewayUrl, stack.devCredentials) : []),
      "",
    ].join("\n"),
  );
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`start failed: ${message}\n`);
  if (message.includes("EADDRINUSE")) {
    process.stderr.write(
      "  A port is taken: another copy of the system (or another program) uses it. Stop it, or\n" +
        "  run this one beside it on free ports: LAUNCHER_PORTS=ephemeral npm start\n",
    );
  }
  await stack?.stop();
  process.exit(1);
}

/** The launcher's configuration; a bad variable is one line on stderr and exit 1, no stack. */
function loadConfigOrExit(): LauncherConfig {
  try {
    return loadLauncherConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`start failed: ${error.message}\n`);
    process.exit(1);
  }
}

/** MoveSpec Studio's address, when this gateway serves it (STUDIO_ENABLED, docs/studio.md). */
async function studioUrl(gatewayUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${gatewayUrl}/studio`, { method: "HEAD" });
    return response.ok ? `${gatewayUrl}/studio` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The variables the admin tool needs to find these services (ports differ when ephemeral) and,
 * unless they are where it looks by default (.data/pki/operator), the operator's certificates.
 */
function adminEnvironment(stack: Stack): string {
  const { auth, authoring, catalogue } = stack.services;
  const urls = `AUTH_SERVICE_URL=${auth.grpcUrl} AUTHORING_SERVICE_URL=${authoring.grpcUrl} CATALOGUE_SERVICE_URL=${catalogue.grpcUrl}`;
  if (!stack.pki) return urls;
  const operatorDir = join(stack.pki.dir, "operator");
  return resolve(operatorDir) === resolve(LOCAL_PKI_DIR, "operator")
    ? urls
    : `${urls} INTERNAL_TLS_DIR=${operatorDir}`;
}

/** What to sign in to Studio with: the key printed below, or where to get one. */
function keyHint(stack: Stack): string {
  return stack.devCredentials
    ? "the API key below"
    : "your API key; lost it? npm run admin -- auth create-key --help";
}

/**
 * Shown once, on the first start with an empty data directory. The key came on auth's private
 * pipe: it is in no log and stored nowhere (only its hash).
 */
function developmentKeyBanner(gatewayUrl: string, credentials: DevCredentials): string[] {
  const body = JSON.stringify({ api_key: credentials.api_key });
  return [
    "  ==================== development API key (shown once) ====================",
    `  Project:  ${credentials.project_id} (organization ${credentials.organization_id})`,
    `  API key:  ${credentials.api_key}`,
    "  Mint an access token:",
    `    curl -s -X POST ${gatewayUrl}/api/auth/access-tokens -H 'Content-Type: application/json' -d '${body}'`,
    "  Save the key now: later starts do not print it again.",
    "  ===========================================================================",
    "",
  ];
}
