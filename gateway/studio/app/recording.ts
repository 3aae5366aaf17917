/** A pose-frame.v1 frame as a recording holds it, one JSON object per line. */
export interface RecordedFrame {
  seq: number;
  t: number;
  keypoints: (number[] | null)[] | null;
}

export interface Recording {
  readonly name: string;
  readonly frames: RecordedFrame[];
  /** Lines that were not frames: `line N: why`, the first few. */
  readonly problems: string[];
  readonly rejected: number;
  /** Width / height of the picture the keypoints are normalised to (a video's), when known. */
  readonly aspectRatio?: number;
}

/** Most bytes of an uploaded recording read (after decompression): about an hour at 30 frames/s. */
export const MAX_RECORDING_BYTES = 200 * 1024 * 1024;

/**
 * Reads a JSONL recording, gzip-compressed or not (told by its first two bytes, not its name),
 * in the browser: DecompressionStream does the gunzip. Bad lines are counted and named, not fatal.
 */
export async function readRecording(
  name: string,
  blob: Blob,
  maxBytes = MAX_RECORDING_BYTES,
): Promise<Recording> {
  const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  const bytes = gzipped
    ? blob.stream().pipeThrough(new DecompressionStream("gzip"))
    : blob.stream();
  const text = await readLimited(bytes, maxBytes);
  const frames: RecordedFrame[] = [];
  const problems: string[] = [];
  let rejected = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    const problem = frameProblem(line);
    if (typeof problem === "string") {
      rejected++;
      if (problems.length < 5) problems.push(`line ${index + 1}: ${problem}`);
    } else frames.push({ ...problem, seq: frames.length });
  });
  // Only the first lines are named: say how many more there were.
  if (rejected > problems.length) {
    problems.push(`and ${rejected - problems.length} more line(s) that are not frames`);
  }
  return { name, frames, problems, rejected };
}

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const parts: string[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new Error(`the recording is larger than ${mebibytes(limit)} once decompressed`);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}

function mebibytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
    : `${bytes} bytes`;
}

/** The frame, or why the line is not one (the service checks frames again, fully). */
function frameProblem(line: string): RecordedFrame | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const frame = value as Partial<RecordedFrame>;
  if (typeof frame.t !== "number" || !Number.isFinite(frame.t)) return "no number `t`";
  if (frame.keypoints !== null && !Array.isArray(frame.keypoints)) return "no `keypoints` array";
  return { seq: frame.seq ?? 0, t: frame.t, keypoints: frame.keypoints ?? null };
}

/** The topology a recording's frames use, by their number of keypoints. */
export function topologyOf(frames: readonly RecordedFrame[]): "blazepose-33" | "coco-17" {
  const sample = frames.find((f) => Array.isArray(f.keypoints));
  return sample?.keypoints?.length === 17 ? "coco-17" : "blazepose-33";
}
