import { FrameScanner, type ScannedFrame } from "@movement-detection/movespec";

/** Scans a message at a time, on every connection (a scan runs to completion in one call). */
const scanner = new FrameScanner();

/** Misses in a row after which a connection stops trying the scanner for a while. */
export const MISSES_TO_PAUSE = 8;
/** Messages read with JSON.parse alone before a paused connection tries the scanner again. */
export const PAUSE_MESSAGES = 512;

/**
 * One connection's JSON frame messages read without JSON.parse where the scanner can
 * (movespec/engine/scanned-frame.ts). A client whose messages the scanner leaves (numbers sent
 * with 17 digits, say) would pay for a failed scan on top of JSON.parse on every message: after
 * a few misses in a row the connection stops trying, and tries again now and then in case the
 * client's messages changed.
 */
export class JsonFrameReader {
  private misses = 0;
  private paused = 0;

  /** The message as a scanned frame, or undefined: parse it with JSON.parse. */
  read(data: Buffer): ScannedFrame | undefined {
    if (this.paused > 0) {
      this.paused -= 1;
      return undefined;
    }
    const scanned = scanner.scan(data);
    if (scanned) this.misses = 0;
    else if (++this.misses === MISSES_TO_PAUSE) {
      this.misses = 0;
      this.paused = PAUSE_MESSAGES;
    }
    return scanned;
  }
}
