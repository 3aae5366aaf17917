/**
 * Counts the websocket messages passing one way through the gateway's byte proxy and notes the
 * close code of a close frame, from frame headers only (payloads are skipped, never copied; only a
 * close frame's first two payload bytes are read). Frame headers and those two bytes may straddle
 * TCP reads: the few bytes needed are held back until complete.
 *
 * The service-to-client direction starts with the HTTP response to the upgrade: its head is
 * skipped, and if it is not `101 Switching Protocols` nothing after it is read as frames.
 */
export class FrameObserver {
  /** Complete data messages (text or binary; a fragmented message counts once). */
  messages = 0;
  bytes = 0;
  /** The code of the first close frame seen (1005 when it carried none). */
  closeCode: number | undefined;

  private state: "head" | "frames" | "opaque";
  private headTail = "";
  private payloadLeft = 0;
  private pending: Buffer | undefined;
  /** Inside a close frame's payload: its mask and the code bytes read so far. */
  private close: { mask: Buffer | undefined; read: number[]; offset: number } | undefined;

  constructor(startsWithResponseHead: boolean) {
    this.state = startsWithResponseHead ? "head" : "frames";
  }

  push(input: Buffer): void {
    this.bytes += input.length;
    if (this.state === "opaque") return;
    let chunk = input;
    if (this.state === "head") {
      const end = this.endOfHead(chunk);
      if (end < 0) return;
      chunk = chunk.subarray(end);
    }
    this.readFrames(this.pending ? Buffer.concat([this.pending, chunk]) : chunk);
  }

  /** Where the response head ends in `chunk` (-1: not yet); switches to frames or opaque. */
  private endOfHead(chunk: Buffer): number {
    const text = this.headTail + chunk.toString("latin1", 0, Math.min(chunk.length, 8192));
    const at = text.indexOf("\r\n\r\n");
    if (at < 0) {
      this.headTail = text.slice(-8192);
      return -1;
    }
    this.state = /^HTTP\/1\.1 101 /.test(text) ? "frames" : "opaque";
    return at + 4 - this.headTail.length;
  }

  private readFrames(chunk: Buffer): void {
    this.pending = undefined;
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLeft > 0) {
        const skip = Math.min(this.payloadLeft, chunk.length - at);
        if (this.close) this.readCloseCode(chunk, at, skip);
        this.payloadLeft -= skip;
        at += skip;
        if (this.payloadLeft === 0) this.endClose();
        continue;
      }
      if (chunk.length - at < 2) break;
      const first = chunk[at];
      const second = chunk[at + 1];
      const lengthCode = second & 0x7f;
      const extended = lengthCode === 126 ? 2 : lengthCode === 127 ? 8 : 0;
      const masked = (second & 0x80) !== 0;
      const headerSize = 2 + extended + (masked ? 4 : 0);
      if (chunk.length - at < headerSize) break;
      const length =
        extended === 0
          ? lengthCode
          : extended === 2
            ? chunk.readUInt16BE(at + 2)
            : Number(chunk.readBigUInt64BE(at + 2));
      const opcode = first & 0x0f;
      const fin = (first & 0x80) !== 0;
      if (opcode < 8 && fin) this.messages += 1;
      if (opcode === 8 && this.closeCode === undefined) {
        this.closeCode = 1005;
        const mask = masked
          ? Buffer.from(chunk.subarray(at + headerSize - 4, at + headerSize))
          : undefined;
        if (length >= 2) this.close = { mask, read: [], offset: 0 };
      }
      this.payloadLeft = length;
      at += headerSize;
    }
    if (at < chunk.length) this.pending = Buffer.from(chunk.subarray(at));
  }

  private readCloseCode(chunk: Buffer, at: number, available: number): void {
    const close = this.close as NonNullable<FrameObserver["close"]>;
    for (let i = 0; i < available && close.read.length < 2; i += 1) {
      const byte = chunk[at + i];
      close.read.push(close.mask ? byte ^ close.mask[close.offset % 4] : byte);
      close.offset += 1;
    }
    if (close.read.length === 2) {
      this.closeCode = (close.read[0] << 8) | close.read[1];
      this.close = undefined;
    }
  }

  private endClose(): void {
    this.close = undefined;
  }
}

/** Close codes worth a label of their own; any other is counted as `other`. */
const KNOWN_CLOSE_CODES = new Set([
  1000, 1001, 1002, 1003, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 4401,
  4404, 4409, 4410, 4429,
]);

/** A bounded label for a close code: a client may send any number it likes. */
export function closeCodeLabel(code: number | undefined): string {
  if (code === undefined) return "none";
  return KNOWN_CLOSE_CODES.has(code) ? String(code) : "other";
}
