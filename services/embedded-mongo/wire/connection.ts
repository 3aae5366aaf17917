/**
 * One client connection: frames the byte stream into messages, runs them in order and
 * writes replies. A malformed message closes the connection (as mongod does).
 */
import type net from "node:net";
import type { Logger } from "pino";
import type { Doc } from "../bson-values.js";
import type { Dispatcher } from "../commands/dispatcher.js";
import { MongoCommandError } from "../errors.js";
import { type ClientConnection, ConnectionAuth } from "../security/connection-auth.js";
import {
  encodeOpMsg,
  encodeOpReply,
  type IncomingMessage,
  MAX_MESSAGE_BYTES,
  parseMessage,
} from "./wire-messages.js";

let nextRequestId = 1;

/** Encodes a reply; one that cannot be encoded (e.g. too large) becomes an error reply. */
function encode(reply: Doc, encoder: (doc: Doc) => Buffer): Buffer {
  try {
    const buf = encoder(reply);
    if (buf.length <= MAX_MESSAGE_BYTES) return buf;
    throw new Error(`reply of ${buf.length} bytes exceeds the maximum message size`);
  } catch (error) {
    return encoder(
      new MongoCommandError(
        "BSONObjectTooLarge",
        `cannot encode the reply: ${(error as Error).message}`,
      ).toReply(),
    );
  }
}

/** The largest message a connection may send before it has authenticated. */
export const MAX_UNAUTHENTICATED_MESSAGE_BYTES = 64 * 1024;

export interface ConnectionHooks {
  onIdle(): void;
}

export class Connection {
  private readonly client: ClientConnection;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  closed = false;

  constructor(
    readonly id: number,
    private readonly socket: net.Socket,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    private readonly hooks: ConnectionHooks,
  ) {
    this.client = { id, auth: new ConnectionAuth() };
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
    });
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    while (this.bufferedBytes >= 4) {
      if (this.buffered[0].length < 4) this.buffered = [Buffer.concat(this.buffered)];
      const length = this.buffered[0].readInt32LE(0);
      // Before authentication only the handshake and SASL travel: a few hundred bytes. Without
      // this bound anyone who can reach the port could make it buffer 48 MB per connection.
      const max = this.client.auth.authenticated
        ? MAX_MESSAGE_BYTES
        : MAX_UNAUTHENTICATED_MESSAGE_BYTES;
      if (length < 16 || length > max) {
        this.logger.warn(
          { connectionId: this.id, length },
          "invalid message length, closing connection",
        );
        this.socket.destroy();
        return;
      }
      // Chunks are joined once the whole message is here, not on every arrival: a large
      // message comes in hundreds of chunks, and joining each time is quadratic.
      if (this.bufferedBytes < length) return;
      const head = this.buffered.length === 1 ? this.buffered[0] : Buffer.concat(this.buffered);
      const message = head.subarray(0, length);
      const rest = head.subarray(length);
      this.buffered = rest.length ? [rest] : [];
      this.bufferedBytes = rest.length;
      this.enqueue(message);
    }
  }

  private enqueue(raw: Buffer): void {
    this.inFlight++;
    this.chain = this.chain
      .then(() => this.handle(raw))
      .catch((error) => {
        this.logger.warn(
          { connectionId: this.id, err: error },
          "closing connection after protocol error",
        );
        this.socket.destroy();
      })
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) this.hooks.onIdle();
      });
  }

  private async handle(raw: Buffer): Promise<void> {
    const message: IncomingMessage = parseMessage(raw);
    const requestId = message.header.requestId;
    if (message.kind === "msg") {
      const db = typeof message.body.$db === "string" ? message.body.$db : "admin";
      const reply = await this.dispatcher.dispatch(db, message.body, this.client);
      if (!message.moreToCome)
        this.write(encode(reply, (doc) => encodeOpMsg(nextRequestId++, requestId, doc)));
      return;
    }
    if (message.kind === "query") {
      let reply: Doc;
      if (!message.collection.endsWith(".$cmd")) {
        reply = new MongoCommandError(
          "CommandNotSupported",
          "legacy OP_QUERY is only supported for commands (the initial handshake)",
        ).toReply();
      } else {
        const db = message.collection.slice(0, -".$cmd".length);
        const query = "$query" in message.query ? (message.query.$query as Doc) : message.query;
        reply = await this.dispatcher.dispatch(db, query, this.client);
      }
      this.write(encode(reply, (doc) => encodeOpReply(nextRequestId++, requestId, doc)));
      return;
    }
    this.logger.warn(
      { connectionId: this.id, opCode: message.header.opCode },
      "unsupported wire protocol opcode, closing connection",
    );
    this.socket.destroy();
  }

  private write(buf: Buffer): void {
    if (!this.closed) this.socket.write(buf);
  }
}
