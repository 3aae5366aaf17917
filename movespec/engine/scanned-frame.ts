/**
 * A JSON frame message read straight from its bytes, without building an object per keypoint:
 * the live path's `{"type":"frame","seq":..,"t":..,"keypoints":[[x,y,z,v],...]}`.
 *
 * `JSON.parse` of a 1.4 KB frame and the checks of the arrays it builds were the largest single
 * cost of a live JSON frame on the detection replica (bench/detection/README.md). The scanner
 * takes only the common shape: the four keys once each in any order, `"type"` exactly `"frame"`,
 * numbers for seq and t, `keypoints` null or arrays of 2 to 4 numbers (the same count in every
 * keypoint), whitespace anywhere JSON allows it. Anything else (another key, a string escape, a
 * malformed number, a trailing comma, a surprise of any kind) is not a scanned frame: the caller
 * parses the message with `JSON.parse` as before, so every answer about a message that is not
 * this shape stays exactly what it was.
 *
 * Numbers come out exactly as `JSON.parse` reads them (the double nearest the decimal): a number
 * without an exponent whose digits, as an integer, are below 2^53 and that has at most 22
 * decimals is that integer divided by a power of ten, both exact doubles, so the one rounding of
 * the division is the correct one (Clinger's fast path). Any other number (17 digits, an
 * exponent) leaves the message to `JSON.parse`.
 */

/** A frame scanned from JSON text; `values` holds `valuesPerKeypoint` numbers per keypoint. */
export class ScannedFrame {
  constructor(
    readonly seq: number,
    readonly t: number,
    /** null: no person in the picture (`"keypoints": null`). */
    readonly values: Float64Array | null,
    readonly keypointCount: number,
    readonly valuesPerKeypoint: number,
  ) {}
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Exact powers of ten as doubles (10^22 is the largest). */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** Integers below this are exact doubles (2^53). */
const MAX_EXACT_MANTISSA = 2 ** 53;
/** Most keypoints scanned (a topology has far fewer; more is left to JSON.parse). */
const MAX_KEYPOINTS = 256;

const KEY_TYPE = 1;
const KEY_SEQ = 2;
const KEY_T = 4;
const KEY_KEYPOINTS = 8;

/**
 * Reads a reusable scanner's input. Not reentrant: `scan` returns a frame that owns its values,
 * the scratch space is the scanner's.
 */
export class FrameScanner {
  private bytes: Uint8Array = new Uint8Array(0);
  private at = 0;
  private number = 0;
  private scratch = new Float64Array(33 * 4);

  /** The frame in `bytes` (UTF-8 JSON text), or undefined when it is not the common shape. */
  scan(bytes: Uint8Array): ScannedFrame | undefined {
    this.bytes = bytes;
    this.at = 0;
    try {
      return this.frame();
    } finally {
      this.bytes = EMPTY;
    }
  }

  private frame(): ScannedFrame | undefined {
    if (this.next() !== OPEN_OBJECT) return undefined;
    let seen = 0;
    let seq = 0;
    let t = 0;
    let values: Float64Array | null = null;
    let keypointCount = 0;
    let valuesPerKeypoint = 0;
    for (;;) {
      if (this.next() !== QUOTE) return undefined;
      const key = this.key();
      if (key === 0 || (seen & key) !== 0) return undefined;
      seen |= key;
      if (this.next() !== COLON) return undefined;
      if (key === KEY_TYPE) {
        if (!this.frameType()) return undefined;
      } else if (key === KEY_SEQ) {
        if (!this.readNumber()) return undefined;
        seq = this.number;
      } else if (key === KEY_T) {
        if (!this.readNumber()) return undefined;
        t = this.number;
      } else {
        const c = this.next();
        if (c === 0x6e) {
          if (!this.literal("ull")) return undefined;
        } else if (c === OPEN_ARRAY) {
          const shape = this.keypoints();
          if (shape === undefined) return undefined;
          keypointCount = shape >> 3;
          valuesPerKeypoint = shape & 7;
          values = this.scratch.slice(0, keypointCount * valuesPerKeypoint);
        } else return undefined;
      }
      const c = this.next();
      if (c === CLOSE_OBJECT) break;
      if (c !== COMMA) return undefined;
    }
    if (seen !== (KEY_TYPE | KEY_SEQ | KEY_T | KEY_KEYPOINTS)) return undefined;
    this.skipSpace();
    if (this.at !== this.bytes.length) return undefined;
    return new ScannedFrame(seq, t, values, keypointCount, valuesPerKeypoint);
  }

  /**
   * The keypoints after their `[`: into the scratch space, returning count << 3 | values per
   * keypoint, or undefined when they are not uniform arrays of 2 to 4 numbers.
   */
  private keypoints(): number | undefined {
    let count = 0;
    let per = 0;
    let out = 0;
    for (;;) {
      if (this.next() !== OPEN_ARRAY || count === MAX_KEYPOINTS) return undefined;
      let n = 0;
      for (;;) {
        if (!this.readNumber() || n === 4) return undefined;
        if (out === this.scratch.length) this.grow();
        this.scratch[out++] = this.number;
        n += 1;
        const c = this.next();
        if (c === CLOSE_ARRAY) break;
        if (c !== COMMA) return undefined;
      }
      if (n < 2 || (per !== 0 && n !== per)) return undefined;
      per = n;
      count += 1;
      const c = this.next();
      if (c === CLOSE_ARRAY) return (count << 3) | per;
      if (c !== COMMA) return undefined;
    }
  }

  private grow(): void {
    const larger = new Float64Array(this.scratch.length * 2);
    larger.set(this.scratch);
    this.scratch = larger;
  }

  /** The key after its opening quote, through its closing quote: a KEY_ bit, or 0. */
  private key(): number {
    const b = this.bytes;
    const start = this.at;
    let end = start;
    while (end < b.length && b[end] !== QUOTE) {
      if (b[end] === BACKSLASH) return 0;
      end += 1;
    }
    if (end === b.length) return 0;
    this.at = end + 1;
    switch (end - start) {
      case 1:
        return b[start] === 0x74 ? KEY_T : 0;
      case 3:
        return b[start] === 0x73 && b[start + 1] === 0x65 && b[start + 2] === 0x71 ? KEY_SEQ : 0;
      case 4:
        return b[start] === 0x74 &&
          b[start + 1] === 0x79 &&
          b[start + 2] === 0x70 &&
          b[start + 3] === 0x65
          ? KEY_TYPE
          : 0;
      case 9:
        return this.equals(start, "keypoints") ? KEY_KEYPOINTS : 0;
      default:
        return 0;
    }
  }

  /** `"frame"` (the value of `type`). */
  private frameType(): boolean {
    if (this.next() !== QUOTE) return false;
    if (!this.equals(this.at, 'frame"')) return false;
    this.at += 6;
    return true;
  }

  private literal(rest: string): boolean {
    if (!this.equals(this.at, rest)) return false;
    this.at += rest.length;
    return true;
  }

  private equals(start: number, ascii: string): boolean {
    const b = this.bytes;
    if (start + ascii.length > b.length) return false;
    for (let i = 0; i < ascii.length; i++) if (b[start + i] !== ascii.charCodeAt(i)) return false;
    return true;
  }

  /** The next byte that is not JSON whitespace (0 at the end), consumed. */
  private next(): number {
    this.skipSpace();
    return this.at < this.bytes.length ? this.bytes[this.at++] : 0;
  }

  private skipSpace(): void {
    const b = this.bytes;
    let at = this.at;
    while (at < b.length) {
      const c = b[at];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at += 1;
    }
    this.at = at;
  }

  /** A JSON number token at the cursor into `this.number`; false when there is none. */
  private readNumber(): boolean {
    this.skipSpace();
    const b = this.bytes;
    let at = this.at;
    const negative = b[at] === MINUS;
    if (negative) at += 1;
    let mantissa = 0;
    // Integer part: 0, or a digit 1-9 and more digits.
    let c = b[at];
    if (c === ZERO) {
      at += 1;
    } else if (c > ZERO && c <= NINE) {
      do {
        mantissa = mantissa * 10 + (c - ZERO);
        c = b[++at];
      } while (c >= ZERO && c <= NINE);
    } else return false;
    let fraction = 0;
    c = b[at];
    if (c === DOT) {
      c = b[++at];
      if (!(c >= ZERO && c <= NINE)) return false;
      do {
        mantissa = mantissa * 10 + (c - ZERO);
        fraction += 1;
        c = b[++at];
      } while (c >= ZERO && c <= NINE);
    }
    // An exponent, or more digits than an exact double holds: left to JSON.parse.
    if (
      c === 0x65 ||
      c === 0x45 ||
      mantissa >= MAX_EXACT_MANTISSA ||
      fraction >= POWERS_OF_TEN.length
    )
      return false;
    this.at = at;
    const value = fraction === 0 ? mantissa : mantissa / POWERS_OF_TEN[fraction];
    this.number = negative ? -value : value;
    return true;
  }
}

const EMPTY = new Uint8Array(0);
