/**
 * Watches the client-to-server byte stream of a websocket for messages above the size limit or
 * split into more fragments than a server keeps, reading frame headers only (2 to 14 bytes per
 * frame; payloads are skipped, never copied), so the gateway can refuse such a message before
 * forwarding any of it, and say why.
 *
 * Frame headers that straddle two TCP reads are held back until complete: whatever `push`
 * returns as `forward` ends at a frame boundary or inside a payload, so a frame of the gateway's
 * own (the close) can be injected right after it.
 */
export interface GuardResult {
  /** The bytes that may go on to the server. */
  readonly forward: Buffer;
  /** A frame of this chunk breaks a limit: stop forwarding, close with this code and reason. */
  readonly refusal: Refusal | undefined;
}

export interface Refusal {
  /** 1009 (message too big) or 1008 (policy: too many fragments). */
  readonly closeCode: 1008 | 1009;
  readonly reason: string;
}

/**
 * The most frames one message may come in: the detection replica's websocket server (ws) keeps
 * every fragment of a message until its last, and closes with a bare 1008 past 16,384 of them.
 * A 64 KiB message in 1-byte fragments would cost it 65,536 buffers.
 */
export const MAX_MESSAGE_FRAGMENTS = 16_384;

const TOO_BIG: Refusal = { closeCode: 1009, reason: "message too big" };
const TOO_MANY_FRAGMENTS: Refusal = {
  closeCode: 1008,
  reason: `message in more than ${MAX_MESSAGE_FRAGMENTS} fragments`,
};

export class InboundFrameGuard {
  private payloadLeft = 0;
  private messageBytes = 0;
  private messageFragments = 0;
  private pending: Buffer | undefined;

  constructor(private readonly maxMessageBytes: number) {}

  push(input: Buffer): GuardResult {
    const chunk = this.pending ? Buffer.concat([this.pending, input]) : input;
    this.pending = undefined;
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLeft > 0) {
        const skip = Math.min(this.payloadLeft, chunk.length - at);
        this.payloadLeft -= skip;
        at += skip;
        continue;
      }
      const start = at;
      if (chunk.length - start < 2) return this.holdBack(chunk, start);
      const first = chunk[start];
      const second = chunk[start + 1];
      const lengthCode = second & 0x7f;
      const extended = lengthCode === 126 ? 2 : lengthCode === 127 ? 8 : 0;
      const headerSize = 2 + extended + (second & 0x80 ? 4 : 0);
      if (chunk.length - start < headerSize) return this.holdBack(chunk, start);
      const length =
        extended === 0
          ? lengthCode
          : extended === 2
            ? chunk.readUInt16BE(start + 2)
            : Number(chunk.readBigUInt64BE(start + 2));
      const opcode = first & 0x0f;
      if (opcode < 8) {
        // 0 continues the current message; 1 (text) and 2 (binary) start one.
        if (opcode !== 0) {
          this.messageBytes = 0;
          this.messageFragments = 0;
        }
        this.messageBytes += length;
        this.messageFragments += 1;
        if (this.messageBytes > this.maxMessageBytes) {
          return { forward: chunk.subarray(0, start), refusal: TOO_BIG };
        }
        if (this.messageFragments > MAX_MESSAGE_FRAGMENTS) {
          return { forward: chunk.subarray(0, start), refusal: TOO_MANY_FRAGMENTS };
        }
        if (first & 0x80) {
          this.messageBytes = 0;
          this.messageFragments = 0;
        }
      }
      this.payloadLeft = length;
      at = start + headerSize;
    }
    return { forward: chunk, refusal: undefined };
  }

  /** Between two frames of the client's: a frame of the gateway's own may be sent now. */
  atFrameBoundary(): boolean {
    return this.payloadLeft === 0 && this.pending === undefined;
  }

  private holdBack(chunk: Buffer, start: number): GuardResult {
    this.pending = Buffer.from(chunk.subarray(start));
    return { forward: chunk.subarray(0, start), refusal: undefined };
  }
}

/** A masked client close frame (the gateway speaks for the client towards the server). */
export function clientCloseFrame(code: number, reason: string): Buffer {
  const reasonBytes = Buffer.from(reason, "utf8").subarray(0, 123);
  const payload = Buffer.alloc(2 + reasonBytes.length);
  payload.writeUInt16BE(code, 0);
  reasonBytes.copy(payload, 2);
  const mask = Buffer.from([0x5a, 0x3c, 0x96, 0xe1]);
  const frame = Buffer.alloc(2 + 4 + payload.length);
  frame[0] = 0x88;
  frame[1] = 0x80 | payload.length;
  mask.copy(frame, 2);
  for (let i = 0; i < payload.length; i += 1) frame[6 + i] = payload[i] ^ mask[i % 4];
  return frame;
}
