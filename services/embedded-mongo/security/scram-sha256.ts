/**
 * The server side of SCRAM-SHA-256 (RFC 5802 with RFC 7677's hash), as MongoDB carries it in
 * `saslStart` / `saslContinue` payloads. The server keeps only StoredKey and ServerKey: it can
 * check a proof of the password and prove itself to the client, but cannot recover the password
 * or log in as the user.
 *
 *   client-first  n,,n=<user>,r=<client nonce>
 *   server-first  r=<client nonce><server nonce>,s=<salt>,i=<iterations>
 *   client-final  c=biws,r=<nonce>,p=<ClientKey XOR HMAC(StoredKey, AuthMessage)>
 *   server-final  v=<HMAC(ServerKey, AuthMessage)>
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

export const SCRAM_SHA_256 = "SCRAM-SHA-256";
/** mongod's default `scramSHA256IterationCount`. */
export const DEFAULT_ITERATION_COUNT = 15_000;
/** RFC 7677's minimum; the drivers refuse a server asking for fewer. */
export const MIN_ITERATION_COUNT = 4096;
const SALT_BYTES = 28;
const SERVER_NONCE_BYTES = 24;
const KEY_BYTES = 32;
/** Longer client messages are refused before any parsing (a real one is about 100 bytes). */
export const MAX_MESSAGE_BYTES = 1024;

export interface ScramCredential {
  readonly iterationCount: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

/** Why a conversation failed: for the server's log, never for the client (it gets code 18). */
export class ScramError extends Error {}

const hmac = (key: Buffer, text: string | Buffer): Buffer =>
  createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer): Buffer => createHash("sha256").update(data).digest();

/**
 * Derives what the server stores for a password. The client applies SASLprep to the password
 * first; it is the identity on printable ASCII, the only passwords the store accepts (see
 * `assertUsablePassword`), so none is applied here.
 */
export function deriveScramCredential(
  password: string,
  salt: Buffer = randomBytes(SALT_BYTES),
  iterationCount = DEFAULT_ITERATION_COUNT,
): ScramCredential {
  if (!Number.isInteger(iterationCount) || iterationCount < MIN_ITERATION_COUNT) {
    throw new RangeError(`SCRAM iteration count must be an integer >= ${MIN_ITERATION_COUNT}`);
  }
  const saltedPassword = pbkdf2Sync(password, salt, iterationCount, KEY_BYTES, "sha256");
  return {
    iterationCount,
    salt,
    storedKey: sha256(hmac(saltedPassword, "Client Key")),
    serverKey: hmac(saltedPassword, "Server Key"),
  };
}

/** The store's password policy: long, and plain ASCII (where SASLprep changes nothing). */
export function assertUsablePassword(password: string): void {
  if (!/^[\x21-\x7e]{16,1024}$/.test(password)) {
    throw new RangeError("a password must be 16 to 1024 printable ASCII characters without spaces");
  }
}

/** Strict base64 (the same bytes back when re-encoded), or undefined. */
function fromBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : undefined;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeMessage(payload: Uint8Array): string {
  if (payload.length === 0 || payload.length > MAX_MESSAGE_BYTES) {
    throw new ScramError(`message of ${payload.length} bytes`);
  }
  try {
    return utf8.decode(payload);
  } catch {
    throw new ScramError("message is not UTF-8");
  }
}

/** RFC 5802 saslname: "," and "=" travel as "=2C" and "=3D"; any other "=" is malformed. */
export function decodeSaslName(name: string): string {
  if (name.length === 0) throw new ScramError("empty user name");
  if (/=(?!2C|3D)/.test(name)) throw new ScramError("malformed user name escape");
  return name.replace(/=2C/g, ",").replace(/=3D/g, "=");
}

/** Splits `k=v,k=v` into ordered attributes; a part without `<letter>=` is malformed. */
function attributes(text: string): { key: string; value: string }[] {
  return text.split(",").map((part) => {
    const match = /^([A-Za-z])=(.*)$/s.exec(part);
    if (!match) throw new ScramError(`malformed attribute '${part.slice(0, 20)}'`);
    return { key: match[1], value: match[2] };
  });
}

const NONCE = /^[\x21-\x2b\x2d-\x7e]{8,256}$/; // printable ASCII except ","

export interface ClientFirst {
  readonly username: string;
  readonly gs2Header: string;
  readonly bare: string;
  readonly clientNonce: string;
}

export function parseClientFirst(payload: Uint8Array): ClientFirst {
  const message = decodeMessage(payload);
  const match = /^([ny]),(a=[^,]*)?,(.*)$/s.exec(message);
  if (!match) {
    throw new ScramError(
      message.startsWith("p=") ? "channel binding is not supported" : "malformed gs2 header",
    );
  }
  if (match[2] !== undefined) throw new ScramError("an authorization identity is not supported");
  const gs2Header = `${match[1]},,`;
  const bare = match[3];
  const [name, nonce, ...extensions] = attributes(bare);
  if (name?.key !== "n" || nonce?.key !== "r") throw new ScramError("expected n=...,r=...");
  if (extensions.length > 0) throw new ScramError("extensions are not supported");
  if (!NONCE.test(nonce.value)) throw new ScramError("malformed client nonce");
  return { username: decodeSaslName(name.value), gs2Header, bare, clientNonce: nonce.value };
}

/**
 * One authentication attempt. `start` answers the client-first message; `finish` checks the
 * client's proof and returns the server's signature. A conversation is single-use.
 */
export class ScramServerConversation {
  private state: "new" | "started" | "over" = "new";
  private nonce = "";
  private authMessagePrefix = "";
  private gs2Header = "";

  constructor(
    private readonly credential: ScramCredential,
    /** False for an unknown user: the exchange runs the same way and always fails at the end. */
    private readonly userExists: boolean,
    private readonly serverNonce: string = randomBytes(SERVER_NONCE_BYTES).toString("base64"),
  ) {}

  start(clientFirst: ClientFirst): Buffer {
    if (this.state !== "new") throw new ScramError("conversation already started");
    this.state = "started";
    this.nonce = clientFirst.clientNonce + this.serverNonce;
    this.gs2Header = clientFirst.gs2Header;
    const { salt, iterationCount } = this.credential;
    const serverFirst = `r=${this.nonce},s=${salt.toString("base64")},i=${iterationCount}`;
    this.authMessagePrefix = `${clientFirst.bare},${serverFirst}`;
    return Buffer.from(serverFirst, "utf8");
  }

  finish(payload: Uint8Array): Buffer {
    if (this.state !== "started") throw new ScramError("no client-first message before the proof");
    this.state = "over";
    const message = decodeMessage(payload);
    const proofAt = message.lastIndexOf(",p=");
    if (proofAt < 0) throw new ScramError("missing proof");
    const withoutProof = message.slice(0, proofAt);
    const proof = fromBase64(message.slice(proofAt + 3));
    const [binding, nonce, ...extensions] = attributes(withoutProof);
    if (binding?.key !== "c" || nonce?.key !== "r") throw new ScramError("expected c=...,r=...");
    if (extensions.length > 0) throw new ScramError("extensions are not supported");
    if (binding.value !== Buffer.from(this.gs2Header).toString("base64")) {
      throw new ScramError("channel binding does not match the gs2 header");
    }
    if (nonce.value !== this.nonce) throw new ScramError("nonce does not match");
    if (!proof || proof.length !== KEY_BYTES) throw new ScramError("malformed proof");

    const authMessage = `${this.authMessagePrefix},${withoutProof}`;
    const { storedKey, serverKey } = this.credential;
    const clientSignature = hmac(storedKey, authMessage);
    const clientKey = Buffer.alloc(KEY_BYTES);
    for (let i = 0; i < KEY_BYTES; i++) clientKey[i] = proof[i] ^ clientSignature[i];
    const proven = timingSafeEqual(sha256(clientKey), storedKey);
    if (!proven || !this.userExists) throw new ScramError("wrong password or unknown user");
    return Buffer.from(`v=${hmac(serverKey, authMessage).toString("base64")}`, "utf8");
  }
}

/**
 * A salt and keys for a user that does not exist, stable per name within a process, so that
 * the server-first message does not tell an unknown user from a known one.
 */
export function decoyCredential(secret: Buffer, username: string): ScramCredential {
  const salt = hmac(secret, `salt\u0000${username}`).subarray(0, SALT_BYTES);
  return {
    iterationCount: DEFAULT_ITERATION_COUNT,
    salt,
    storedKey: hmac(secret, `stored\u0000${username}`),
    serverKey: hmac(secret, `server\u0000${username}`),
  };
}
