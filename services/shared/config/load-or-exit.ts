import { ConfigError } from "./env.js";

/**
 * A process's configuration, read once at start. A ConfigError (a variable missing or out of
 * range) is one JSON log line at fatal level, as the process's logs are, and exit code 1: no
 * stack trace for a log pipeline to split into fragments. Anything else is a bug, and thrown.
 */
export function loadConfigOrExit<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const line = { level: 60, time: Date.now(), service, pid: process.pid, msg: error.message };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    process.exit(1);
  }
}
