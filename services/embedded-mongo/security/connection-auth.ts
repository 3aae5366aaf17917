/**
 * What one client connection has proven: nothing at first, then the user it authenticated as.
 * Like mongod with authorization enabled, a connection may run only a handful of commands
 * before it authenticates (the handshake, the SASL conversation, `ping`, `buildInfo`,
 * `connectionStatus`: mongod's commands whose `requiresAuth()` is false); everything else
 * answers 13 Unauthorized.
 */
import type { ScramServerConversation } from "./scram-sha256.js";
import type { StoreUser } from "./user-registry.js";

export const UNAUTHENTICATED_COMMANDS: ReadonlySet<string> = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "buildinfo",
  "connectionStatus",
  "saslStart",
  "saslContinue",
  "authenticate",
]);

export interface SaslConversation {
  /** mongod numbers them per connection; only one is open at a time. */
  readonly id: number;
  readonly db: string;
  readonly username: string;
  readonly scram: ScramServerConversation;
  /** The driver asks to finish on the proof's reply instead of one more empty round trip. */
  readonly skipEmptyExchange: boolean;
  step: "proof" | "empty";
  /** Set once the proof checked out (the user is authenticated when the conversation ends). */
  user?: StoreUser;
}

export class ConnectionAuth {
  user: StoreUser | undefined;
  conversation: SaslConversation | undefined;
  private conversations = 0;

  get authenticated(): boolean {
    return this.user !== undefined;
  }

  nextConversationId(): number {
    this.conversations += 1;
    return this.conversations;
  }
}

/** What the dispatcher needs to know about the connection a command came on. */
export interface ClientConnection {
  readonly id: number;
  readonly auth: ConnectionAuth;
}
