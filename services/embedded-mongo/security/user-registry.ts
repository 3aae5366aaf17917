/**
 * The store's users, kept in `users.json` in the data directory (0600) in the shape of mongod's
 * `admin.system.users` documents: name, database, roles and SCRAM-SHA-256 keys (salt, iteration
 * count, StoredKey, ServerKey), never the password.
 *
 * First start (no `users.json`): a random password is generated and written for clients to
 * `credentials.json` (0600), then its SCRAM keys to `users.json`. An operator who wants a given
 * password writes `credentials.json` before the first start (or deletes `users.json` later); the
 * keys are derived from it. To start over with new credentials, delete both files.
 */

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import {
  AUTH_SOURCE,
  type ClientCredentials,
  credentialsFileOf,
  DEFAULT_USERNAME,
  readClientCredentials,
} from "./client-credentials.js";
import { writePrivateFile } from "./data-directory.js";
import {
  assertUsablePassword,
  decoyCredential,
  deriveScramCredential,
  MIN_ITERATION_COUNT,
  SCRAM_SHA_256,
  type ScramCredential,
} from "./scram-sha256.js";

export const USERS_FILE_NAME = "users.json";
const PASSWORD_BYTES = 24; // 192 bits, 32 base64url characters

export interface Role {
  readonly role: string;
  readonly db: string;
}

export interface StoreUser {
  readonly user: string;
  readonly db: string;
  readonly roles: readonly Role[];
  readonly credential: ScramCredential;
}

export class UserRegistry {
  private readonly users: Map<string, StoreUser>;
  /** Per process: decoy salts are stable while the server runs, and unguessable. */
  private readonly decoySecret = randomBytes(32);

  constructor(users: readonly StoreUser[]) {
    this.users = new Map(users.map((u) => [key(u.db, u.user), u]));
  }

  find(db: string, user: string): StoreUser | undefined {
    return this.users.get(key(db, user));
  }

  /** The user's keys, or decoy keys for an unknown user (so both look alike to the client). */
  credentialFor(db: string, user: string): { credential: ScramCredential; user?: StoreUser } {
    const found = this.find(db, user);
    if (found) return { credential: found.credential, user: found };
    return { credential: decoyCredential(this.decoySecret, `${db}.${user}`) };
  }
}

const key = (db: string, user: string): string => `${db}\u0000${user}`;

export interface OpenedUsers {
  readonly registry: UserRegistry;
  readonly usersFile: string;
  readonly credentialsFile: string;
}

/** Loads `users.json`, creating it (and the client's `credentials.json`) at the first start. */
export function openUserRegistry(dataDir: string, logger: Logger): OpenedUsers {
  const usersFile = path.join(dataDir, USERS_FILE_NAME);
  const credentialsFile = credentialsFileOf(dataDir);
  if (fs.existsSync(usersFile)) {
    if (!fs.existsSync(credentialsFile)) {
      logger.warn(
        { usersFile, credentialsFile },
        "credentials file missing: clients need the password it held (delete users.json too, and restart, to generate new credentials)",
      );
    }
    return { registry: new UserRegistry(readUsersFile(usersFile)), usersFile, credentialsFile };
  }
  let credentials: ClientCredentials;
  if (fs.existsSync(credentialsFile)) {
    credentials = readClientCredentials(credentialsFile);
    try {
      assertUsablePassword(credentials.password);
    } catch (error) {
      throw new Error(`store credentials ${credentialsFile}: ${(error as Error).message}`);
    }
    logger.info({ usersFile, credentialsFile }, "store user created from the credentials file");
  } else {
    credentials = {
      username: DEFAULT_USERNAME,
      password: randomBytes(PASSWORD_BYTES).toString("base64url"),
      authSource: AUTH_SOURCE,
    };
    writePrivateFile(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`);
    logger.info(
      { user: credentials.username, credentialsFile },
      "store credentials generated (the password is in the credentials file only)",
    );
  }
  const user: StoreUser = {
    user: credentials.username,
    db: credentials.authSource,
    roles: [{ role: "root", db: "admin" }],
    credential: deriveScramCredential(credentials.password),
  };
  writePrivateFile(usersFile, `${JSON.stringify({ users: [toJson(user)] }, null, 2)}\n`);
  return { registry: new UserRegistry([user]), usersFile, credentialsFile };
}

function toJson(user: StoreUser): Record<string, unknown> {
  const { iterationCount, salt, storedKey, serverKey } = user.credential;
  return {
    user: user.user,
    db: user.db,
    roles: user.roles,
    credentials: {
      [SCRAM_SHA_256]: {
        iterationCount,
        salt: salt.toString("base64"),
        storedKey: storedKey.toString("base64"),
        serverKey: serverKey.toString("base64"),
      },
    },
  };
}

function readUsersFile(file: string): StoreUser[] {
  const fail = (reason: string): never => {
    throw new Error(`invalid users file ${file}: ${reason}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    return fail((error as Error).message);
  }
  const users = (parsed as { users?: unknown })?.users;
  if (!Array.isArray(users) || users.length === 0) return fail('expected {"users": [...]}');
  return users.map((raw, i): StoreUser => {
    const u = raw as Record<string, unknown>;
    const scram = (u?.credentials as Record<string, Record<string, unknown>> | undefined)?.[
      SCRAM_SHA_256
    ];
    const bytes = (value: unknown, length?: number): Buffer => {
      const b = typeof value === "string" ? Buffer.from(value, "base64") : Buffer.alloc(0);
      if (b.length === 0 || (length !== undefined && b.length !== length)) {
        fail(`user ${i}: malformed ${SCRAM_SHA_256} key`);
      }
      return b;
    };
    if (typeof u?.user !== "string" || typeof u.db !== "string" || !scram) {
      return fail(`user ${i}: expected user, db and credentials.${SCRAM_SHA_256}`);
    }
    const iterationCount = scram.iterationCount;
    if (typeof iterationCount !== "number" || iterationCount < MIN_ITERATION_COUNT) {
      return fail(`user ${i}: iterationCount below ${MIN_ITERATION_COUNT}`);
    }
    // Roles are not enforced per command: a user may do everything, so say so in the file.
    const roles = Array.isArray(u.roles) ? (u.roles as Role[]) : [];
    if (!roles.some((r) => r?.role === "root" && r.db === "admin")) {
      return fail(`user ${i}: only users with the role root on admin are supported`);
    }
    return {
      user: u.user,
      db: u.db,
      roles: [{ role: "root", db: "admin" }],
      credential: {
        iterationCount,
        salt: bytes(scram.salt),
        storedKey: bytes(scram.storedKey, 32),
        serverKey: bytes(scram.serverKey, 32),
      },
    };
  });
}
