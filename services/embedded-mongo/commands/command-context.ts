/**
 * What every command handler receives, and small helpers shared by handlers.
 */
import type { Logger } from "pino";
import type { Doc } from "../bson-values.js";
import type { CursorRegistry } from "../cursor-registry.js";
import { MongoCommandError } from "../errors.js";
import type { Deadline } from "../operation-deadline.js";
import type { ConnectionAuth } from "../security/connection-auth.js";
import type { UserRegistry } from "../security/user-registry.js";
import type { DataAccess } from "../sessions/data-access.js";
import type { ServerSession, SessionRegistry } from "../sessions/session-registry.js";
import type { StorageEngine } from "../storage/storage-engine.js";

export interface ServerIdentity {
  /** host:port advertised in hello (must be reachable by clients). */
  address: string;
  replicaSetName: string;
  startedAt: Date;
}

export interface CommandContext {
  db: string;
  body: Doc;
  engine: StorageEngine;
  sessions: SessionRegistry;
  cursors: CursorRegistry;
  access: DataAccess;
  session: ServerSession | undefined;
  identity: ServerIdentity;
  connectionId: number;
  /** What this connection has authenticated as (and its SASL conversation in progress). */
  auth: ConnectionAuth;
  users: UserRegistry;
  logger: Logger;
  /** When its work must stop: its `maxTimeMS`, and the server's limit (operation-deadline.ts). */
  deadline: Deadline;
}

export type CommandHandler = (ctx: CommandContext) => Doc | Promise<Doc>;

/** The collection name a command targets (the value of its first field). */
export function collectionName(ctx: CommandContext, commandName: string): string {
  const name = ctx.body[commandName];
  if (typeof name !== "string" || name.length === 0) {
    throw new MongoCommandError(
      "InvalidNamespace",
      `collection name has invalid type ${typeof name} for command ${commandName}`,
    );
  }
  if (name.includes("\u0000") || name.startsWith("system.") || name.includes("$")) {
    throw new MongoCommandError("InvalidNamespace", `Invalid collection name: ${name}`);
  }
  return name;
}

export function optionalDoc(ctx: CommandContext, field: string): Doc | undefined {
  const value = ctx.body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field '${field}' is the wrong type '${Array.isArray(value) ? "array" : typeof value}', expected type 'object'`,
    );
  }
  return value as Doc;
}

/** Only the simple binary collation is available; anything else is refused by name. */
export function rejectCollation(collation: unknown): void {
  if (collation === undefined || collation === null) return;
  const locale = (collation as Doc).locale;
  if (locale === "simple") return;
  throw new MongoCommandError(
    "BadValue",
    `collation ${JSON.stringify(collation)} is not supported by the embedded server (only 'simple')`,
  );
}
