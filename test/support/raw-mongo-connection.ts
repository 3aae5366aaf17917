/**
 * A bare wire-protocol connection for tests that must send what no driver would (garbage,
 * lying lengths, unacknowledged writes, hand-made handshakes). Replies are read in order.
 * `authenticate` runs SCRAM-SHA-256 by hand (RFC 5802/7677), for raw tests that need an
 * authenticated connection; everything else authenticates through the official driver.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import net from "node:net";
import { Binary, BSON } from "bson";
import type { ClientCredentials } from "../../services/embedded-mongo/security/client-credentials.js";

export type Reply = Record<string, unknown>;

export function opMsg(body: Record<string, unknown>, requestId = 1, flags = 0): Buffer {
  const payload = BSON.serialize(body);
  const out = Buffer.alloc(21 + payload.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(0, 8);
  out.writeInt32LE(2013, 12);
  out.writeUInt32LE(flags, 16);
  out.writeUInt8(0, 20);
  out.set(payload, 21);
  return out;
}

export class RawMongoConnection {
  private data = Buffer.alloc(0);
  private closed = false;
  private waiting: (() => void) | undefined;
  private nextRequestId = 100;

  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.waiting?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on("error", () => {});
  }

  static open(port: number, host = "127.0.0.1"): Promise<RawMongoConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => {
        socket.off("error", reject);
        resolve(new RawMongoConnection(socket));
      });
      socket.once("error", reject);
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next reply's body, or null once the server has closed the connection. */
  async reply(timeoutMs = 5000): Promise<Reply | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.data.length >= 4 && this.data.length >= this.data.readInt32LE(0)) {
        const length = this.data.readInt32LE(0);
        const body = BSON.deserialize(this.data.subarray(21, length));
        this.data = this.data.subarray(length);
        return body;
      }
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no reply and no close");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = undefined;
    }
  }

  async command(body: Record<string, unknown>): Promise<Reply> {
    this.write(opMsg(body, this.nextRequestId++));
    const reply = await this.reply();
    if (!reply) throw new Error("the server closed the connection");
    return reply;
  }

  /**
   * SCRAM-SHA-256 by hand; resolves to the final reply, rejects on any failed step. With
   * `speculative`, the first step rides in `hello` as the drivers do it.
   */
  async authenticate(
    credentials: ClientCredentials,
    options: { speculative?: boolean } = {},
  ): Promise<Reply> {
    const db = credentials.authSource;
    const clientNonce = randomBytes(24).toString("base64");
    const bare = `n=${credentials.username.replace(/=/g, "=3D").replace(/,/g, "=2C")},r=${clientNonce}`;
    const saslStart = {
      saslStart: 1,
      mechanism: "SCRAM-SHA-256",
      payload: new Binary(Buffer.from(`n,,${bare}`)),
      options: { skipEmptyExchange: true },
    };
    let first: Reply;
    if (options.speculative) {
      const hello = await this.command({
        hello: 1,
        speculativeAuthenticate: { ...saslStart, db },
        $db: "admin",
      });
      if (!hello.speculativeAuthenticate)
        throw Object.assign(new Error("no speculative start"), hello);
      first = hello.speculativeAuthenticate as Reply;
    } else {
      first = await this.command({ ...saslStart, $db: db });
      if (first.ok !== 1) throw Object.assign(new Error("saslStart failed"), first);
    }
    const serverFirst = Buffer.from((first.payload as Binary).buffer).toString();
    const fields = Object.fromEntries(serverFirst.split(",").map((p) => [p[0], p.slice(2)]));
    const salted = pbkdf2Sync(
      credentials.password,
      Buffer.from(fields.s, "base64"),
      Number(fields.i),
      32,
      "sha256",
    );
    const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
    const clientKey = hmac(salted, "Client Key");
    const storedKey = createHash("sha256").update(clientKey).digest();
    const withoutProof = `c=biws,r=${fields.r}`;
    const authMessage = `${bare},${serverFirst},${withoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
    const final = await this.command({
      saslContinue: 1,
      conversationId: first.conversationId,
      payload: new Binary(Buffer.from(`${withoutProof},p=${proof.toString("base64")}`)),
      $db: db,
    });
    if (final.ok !== 1) throw Object.assign(new Error("saslContinue failed"), final);
    return final;
  }

  close(): void {
    this.socket.destroy();
  }
}
