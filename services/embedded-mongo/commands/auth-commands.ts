/**
 * Authentication as the official drivers perform it: SCRAM-SHA-256 over `saslStart` /
 * `saslContinue`, started speculatively inside the handshake (`hello.speculativeAuthenticate`)
 * after the driver learned the mechanism from `hello.saslSupportedMechs`. Every failure of a
 * conversation answers 18 AuthenticationFailed with one message, whatever went wrong (wrong
 * password, unknown user, malformed message): the reason goes to the server's log only.
 */
import { Binary } from "bson";
import type { Doc } from "../bson-values.js";
import { MongoCommandError } from "../errors.js";
import type { ConnectionAuth } from "../security/connection-auth.js";
import {
  parseClientFirst,
  SCRAM_SHA_256,
  ScramError,
  ScramServerConversation,
} from "../security/scram-sha256.js";
import type { CommandContext, CommandHandler } from "./command-context.js";

const authenticationFailed = (): MongoCommandError =>
  new MongoCommandError("AuthenticationFailed", "Authentication failed.");

function payloadBytes(value: unknown): Uint8Array {
  if (value instanceof Binary) return value.buffer.subarray(0, value.position);
  if (value instanceof Uint8Array) return value;
  throw new MongoCommandError("TypeMismatch", "SASL payload must be binary data");
}

function logFailure(
  ctx: Pick<CommandContext, "logger" | "connectionId">,
  details: { user?: string; db: string; mechanism: string; reason: string },
): void {
  ctx.logger.warn({ connectionId: ctx.connectionId, ...details }, "authentication failed");
}

/** saslStart's work, shared by the command and the handshake's speculative authentication. */
function startConversation(
  ctx: CommandContext,
  db: string,
  request: Doc,
): { conversationId: number; done: false; payload: Binary } {
  const mechanism = request.mechanism;
  if (mechanism !== SCRAM_SHA_256) {
    throw new MongoCommandError(
      "MechanismUnavailable",
      `Received authentication for mechanism ${String(mechanism)} which is not enabled (this server offers ${SCRAM_SHA_256} only)`,
    );
  }
  const auth: ConnectionAuth = ctx.auth;
  auth.conversation = undefined;
  let username: string | undefined;
  try {
    const clientFirst = parseClientFirst(payloadBytes(request.payload));
    username = clientFirst.username;
    const { credential, user } = ctx.users.credentialFor(db, username);
    const scram = new ScramServerConversation(credential, user !== undefined);
    const serverFirst = scram.start(clientFirst);
    const options = request.options as Doc | undefined;
    const id = auth.nextConversationId();
    auth.conversation = {
      id,
      db,
      username,
      scram,
      skipEmptyExchange: options?.skipEmptyExchange === true,
      step: "proof",
    };
    return { conversationId: id, done: false, payload: new Binary(serverFirst) };
  } catch (error) {
    if (!(error instanceof ScramError)) throw error;
    logFailure(ctx, { user: username, db, mechanism, reason: error.message });
    throw authenticationFailed();
  }
}

const saslStart: CommandHandler = (ctx) => ({ ...startConversation(ctx, ctx.db, ctx.body), ok: 1 });

const saslContinue: CommandHandler = (ctx) => {
  const conversation = ctx.auth.conversation;
  if (!conversation || Number(ctx.body.conversationId) !== conversation.id) {
    throw new MongoCommandError("ProtocolError", "No SASL session state found");
  }
  const { id, db, username } = conversation;
  const payload = payloadBytes(ctx.body.payload);
  if (conversation.step === "empty") {
    ctx.auth.conversation = undefined;
    if (payload.length !== 0) {
      logFailure(ctx, { user: username, db, mechanism: SCRAM_SHA_256, reason: "unexpected data" });
      throw authenticationFailed();
    }
    ctx.auth.user = conversation.user;
    return { conversationId: id, done: true, payload: new Binary(Buffer.alloc(0)), ok: 1 };
  }
  let serverFinal: Buffer;
  try {
    serverFinal = conversation.scram.finish(payload);
  } catch (error) {
    ctx.auth.conversation = undefined;
    if (!(error instanceof ScramError)) throw error;
    logFailure(ctx, { user: username, db, mechanism: SCRAM_SHA_256, reason: error.message });
    throw authenticationFailed();
  }
  conversation.user = ctx.users.find(db, username);
  if (conversation.skipEmptyExchange) {
    ctx.auth.conversation = undefined;
    ctx.auth.user = conversation.user;
    ctx.logger.debug({ connectionId: ctx.connectionId, user: username, db }, "authenticated");
    return { conversationId: id, done: true, payload: new Binary(serverFinal), ok: 1 };
  }
  conversation.step = "empty";
  return { conversationId: id, done: false, payload: new Binary(serverFinal), ok: 1 };
};

/**
 * Adds to a handshake reply what an authenticating driver asks for: the mechanisms of the user
 * named in `saslSupportedMechs` ("db.user"; omitted for an unknown user, as mongod does), and the
 * first SCRAM step of `speculativeAuthenticate` (omitted if it cannot start: the driver then
 * runs `saslStart` itself and gets the real error).
 */
export function negotiateAuthentication(ctx: CommandContext, reply: Doc): Doc {
  const mechsFor = ctx.body.saslSupportedMechs;
  if (typeof mechsFor === "string") {
    const dot = mechsFor.indexOf(".");
    if (dot > 0 && ctx.users.find(mechsFor.slice(0, dot), mechsFor.slice(dot + 1))) {
      reply.saslSupportedMechs = [SCRAM_SHA_256];
    }
  }
  const speculative = ctx.body.speculativeAuthenticate as Doc | undefined;
  if (speculative && typeof speculative === "object" && speculative.saslStart !== undefined) {
    const db = typeof speculative.db === "string" ? speculative.db : ctx.db;
    try {
      reply.speculativeAuthenticate = startConversation(ctx, db, speculative);
    } catch {
      // Treated as if no speculative start was asked for (logged by startConversation).
    }
  }
  return reply;
}

const connectionStatus: CommandHandler = (ctx) => {
  const user = ctx.auth.user;
  return {
    authInfo: {
      authenticatedUsers: user ? [{ user: user.user, db: user.db }] : [],
      authenticatedUserRoles: user ? user.roles.map((r) => ({ role: r.role, db: r.db })) : [],
    },
    ok: 1,
  };
};

export const authCommands: Record<string, CommandHandler> = {
  saslStart,
  saslContinue,
  connectionStatus,
  // Older drivers' MONGODB-X509 / MONGODB-CR entry point: neither mechanism is offered.
  authenticate: (ctx) => {
    throw new MongoCommandError(
      "MechanismUnavailable",
      `Received authentication for mechanism ${String(ctx.body.mechanism)} which is not enabled (this server offers ${SCRAM_SHA_256} only, through saslStart)`,
    );
  },
};
