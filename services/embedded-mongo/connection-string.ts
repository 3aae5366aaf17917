/**
 * Prints the connection string of the embedded store, credentials included, for a developer's
 * shell (a service run alone, mongosh, a script):
 *
 *   MONGODB_URI="$(node --import tsx services/embedded-mongo/connection-string.ts)" ...
 *
 * Same options and variables as main.ts (`--port`, `--dbpath`, `--host`, EMBEDDED_MONGO_*); the
 * password comes from the data directory's 0600 credentials file, written at the store's first
 * start. Prints to stdout only: keep it out of logs and shell history files.
 */
import { loadConfig } from "./config.js";
import {
  credentialsFileOf,
  readClientCredentials,
  withCredentials,
} from "./security/client-credentials.js";

try {
  const config = loadConfig();
  const credentials = readClientCredentials(credentialsFileOf(config.dataDir));
  const plain = `mongodb://${config.advertisedHost}:${config.port}/?directConnection=true`;
  process.stdout.write(`${withCredentials(plain, credentials)}\n`);
} catch (error) {
  process.stderr.write(
    `embedded-mongo: ${(error as Error).message}\n(has the store been started once on this data directory? npm start does it)\n`,
  );
  process.exit(1);
}
