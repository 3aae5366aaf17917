/** Reads a recording: JSON Lines of pose frames (pose-frame.v1), one frame per line. */
import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";

export interface RecordingLine {
  /** 1-based line number in the file. */
  line: number;
  /** Parsed frame, or undefined when the line is not JSON. */
  frame?: unknown;
  error?: string;
  /** Bytes read so far (for progress). */
  bytesRead: number;
}

export function recordingSize(path: string): number {
  return statSync(path).size;
}

/** Yields the frames of a `.jsonl` (or `.jsonl.gz`) file one by one, without loading it whole. */
export async function* readRecording(path: string): AsyncGenerator<RecordingLine> {
  const file = createReadStream(path);
  let bytesRead = 0;
  file.on("data", (chunk) => {
    bytesRead += chunk.length;
  });
  const input = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === "") continue;
    try {
      yield { line, frame: JSON.parse(text), bytesRead };
    } catch {
      yield { line, error: "not valid JSON", bytesRead };
    }
  }
}
