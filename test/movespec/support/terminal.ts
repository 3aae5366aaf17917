/**
 * A minimal terminal screen for tests: the text a person would see after the escape sequences a
 * progress bar writes (carriage return, cursor moves, line and screen clears). Streams made with
 * `tty()` write into it as a terminal's stdout and stderr both do.
 */
import { Writable } from "node:stream";

export class Screen {
  private lines: string[] = [""];
  private row = 0;
  private col = 0;
  /** Everything written, escape sequences included. */
  raw = "";

  text(): string[] {
    return this.lines.map((l) => l.replace(/\s+$/, ""));
  }

  feed(s: string): void {
    this.raw += s;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === "\x1b") {
        i = this.escape(s, i);
        continue;
      }
      if (c === "\n") {
        // A terminal's line discipline turns \n into \r\n.
        this.row++;
        this.col = 0;
        while (this.lines.length <= this.row) this.lines.push("");
        continue;
      }
      if (c === "\r") {
        this.col = 0;
        continue;
      }
      const line = this.lines[this.row].padEnd(this.col);
      this.lines[this.row] = line.slice(0, this.col) + c + line.slice(this.col + 1);
      this.col++;
    }
  }

  /** Handles one escape sequence starting at s[i]; returns the index of its last character. */
  private escape(s: string, i: number): number {
    if (s[i + 1] === "7" || s[i + 1] === "8") return i + 1; // save / restore cursor: unused
    // After ESC: "[", an optional "?", numbers and the command letter.
    const m = /^.\[(\??)(\d*)(?:;(\d*))?([A-Za-z])/.exec(s.slice(i, i + 16));
    if (!m) throw new Error(`unexpected escape sequence ${JSON.stringify(s.slice(i, i + 8))}`);
    const [all, private_, a, b, op] = m;
    if (private_) return i + all.length - 1; // cursor visibility, line wrapping
    const n = a === "" ? undefined : Number(a);
    switch (op) {
      case "A":
        this.row = Math.max(0, this.row - (n ?? 1));
        break;
      case "B":
        this.row += n ?? 1;
        while (this.lines.length <= this.row) this.lines.push("");
        break;
      case "C":
        this.col += n ?? 1;
        break;
      case "D":
        this.col = Math.max(0, this.col - (n ?? 1));
        break;
      case "G":
        this.col = (n ?? 1) - 1;
        break;
      case "H":
        this.row = (n ?? 1) - 1;
        this.col = (Number(b) || 1) - 1;
        break;
      case "K": {
        const line = this.lines[this.row];
        if (n === 2) this.lines[this.row] = "";
        else if (n === 1) this.lines[this.row] = " ".repeat(this.col) + line.slice(this.col);
        else this.lines[this.row] = line.slice(0, this.col);
        break;
      }
      case "J":
        this.lines[this.row] = this.lines[this.row].slice(0, this.col);
        this.lines.length = this.row + 1;
        break;
      default:
        throw new Error(`unexpected escape sequence ${JSON.stringify(all)}`);
    }
    return i + all.length - 1;
  }
}

/** A stream that is a terminal showing `screen`. */
export function tty(screen: Screen, columns = 120): Writable & { isTTY: true; columns: number } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      screen.feed(chunk.toString());
      done();
    },
  }) as Writable & { isTTY: true; columns: number };
  stream.isTTY = true;
  stream.columns = columns;
  return stream;
}
