/**
 * Runs the embedded MongoDB-compatible server as a process:
 *   node --import tsx services/embedded-mongo/main.ts [--port N] [--dbpath DIR] [--host H]
 * Prints one JSON log line with "msg":"ready", the port, the connection string (without
 * credentials) and the credentials file once it accepts connections; SIGTERM/SIGINT stop it
 * cleanly (exit 0).
 */

import { logProcessWarnings, secretRedaction } from "@movement-detection/shared/logging";
import { pino } from "pino";
import { loadConfig } from "./config.js";
import { createEmbeddedMongoServer, type EmbeddedMongoAddress } from "./embedded-mongo-server.js";

async function main(): Promise<void> {
  // Like mongod: whatever this process creates is its owner's only (files 0600, directories 0700).
  process.umask(0o077);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`embedded-mongo: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const logger = pino({
    ...secretRedaction(),
    level: config.logLevel,
    base: { service: "embedded-mongo", pid: process.pid },
  });
  logProcessWarnings(logger);
  const server = createEmbeddedMongoServer({ ...config, logger });
  let address: EmbeddedMongoAddress;
  try {
    address = await server.start();
  } catch (error) {
    logger.fatal(
      { err: error, dataDir: config.dataDir },
      `failed to start: ${(error as Error).message}`,
    );
    process.exit(1);
  }
  logger.info(
    {
      port: address.port,
      host: config.host,
      uri: address.uri,
      credentialsFile: address.credentialsFile,
      dataDir: config.dataDir,
      fsync: config.fsync,
    },
    "ready",
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    server
      .stop()
      .then(() => {
        logger.info("stopped");
        process.exit(0);
      })
      .catch((error) => {
        logger.error({ err: error }, "error while stopping");
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  if (config.stopOnStdinClose) {
    // The parent holds our stdin open; if it dies (even by SIGKILL), stdin closes.
    process.stdin.on("end", () => shutdown("stdin closed"));
    process.stdin.on("close", () => shutdown("stdin closed"));
    process.stdin.resume();
  }
}

void main();
