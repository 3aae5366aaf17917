/**
 * The client's side of the store's credentials: `credentials.json` in the data directory (0600),
 * written at the first start, read by whoever connects (the launcher of `npm start`, the test
 * harness, a developer's shell). The server itself never reads the password after the first
 * start: it authenticates against `users.json`, which holds only SCRAM keys.
 *
 * Kept free of server code: the launcher and the tests import it.
 */
import fs from "node:fs";
import path from "node:path";

export const CREDENTIALS_FILE_NAME = "credentials.json";
/** The user the store creates at its first start; it may do everything (mongod's `root`). */
export const DEFAULT_USERNAME = "mds-admin";
export const AUTH_SOURCE = "admin";

export interface ClientCredentials {
  readonly username: string;
  readonly password: string;
  /** The database the user is defined in (the driver's `authSource`). */
  readonly authSource: string;
}

export function credentialsFileOf(dataDir: string): string {
  return path.join(dataDir, CREDENTIALS_FILE_NAME);
}

/** Reads and checks a credentials file; the error names the file and what is wrong. */
export function readClientCredentials(file: string): ClientCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read store credentials ${file}: ${(error as Error).message}`);
  }
  const {
    username,
    password,
    authSource = AUTH_SOURCE,
  } = (parsed ?? {}) as Record<string, unknown>;
  const printable = (value: unknown): value is string =>
    typeof value === "string" && /^[\x21-\x7e]{1,1024}$/.test(value);
  if (!printable(username) || !printable(password) || !printable(authSource)) {
    throw new Error(
      `store credentials ${file} must be a JSON object with printable "username", "password" and optional "authSource"`,
    );
  }
  return { username, password, authSource };
}

/**
 * `mongodb://host:port/?opts` with the credentials added: percent-encoded user and password,
 * and `authSource`. Keep the result out of logs; `redactUri` makes a printable copy.
 */
export function withCredentials(uri: string, credentials: ClientCredentials): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)([^/?]*)(\/[^?]*)?(?:\?(.*))?$/.exec(uri);
  if (!match || match[2].includes("@")) {
    throw new Error("expected a mongodb:// connection string without credentials");
  }
  const [, scheme, hosts, dbPath = "/", query = ""] = match;
  const params = new URLSearchParams(query);
  params.set("authSource", credentials.authSource);
  const user = encodeURIComponent(credentials.username);
  const password = encodeURIComponent(credentials.password);
  return `${scheme}${user}:${password}@${hosts}${dbPath}?${params.toString()}`;
}

/** The authenticated connection string of a started server (`{ uri, credentialsFile }`). */
export function authenticatedUri(address: { uri: string; credentialsFile: string }): string {
  return withCredentials(address.uri, readClientCredentials(address.credentialsFile));
}

/** The connection string with its password replaced by `****` (for banners and logs). */
export function redactUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^:/?@]*:)[^@/?]*@/, "$1****@");
}
