/**
 * What detection does per frame message before and inside the engine, JSON against binary, in one
 * process (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/frame-decode.bench.ts
 *
 * The squat MoveSpec over UI-PRMD deep squat m01_s01 looped (seq and t rising), 33 BlazePose
 * keypoints with 4 values. Per message, what stream-connection.ts and the engine do:
 * - json, one frame per message: `data.toString("utf8")`, `JSON.parse`, `engine.push`;
 * - json, one frame per message, scanned: what the stream does since the scanner
 *   (movespec/engine/scanned-frame.ts, stream/json-frame-reader.ts), JSON.parse for what it
 *   leaves;
 * - the same two for frames whose values have up to 17 digits (float32 values sent unrounded);
 * - json, batches of 40: the same with `engine.pushMany`;
 * - binary, one frame per message and batches of 40/100: `readBinaryFrames` (header and size
 *   checks, no copy) and `engine.pushPacked` (values read from the bytes).
 * Baseline: the engine alone on already-parsed frames (`engine.push`), the floor both pay.
 * Blocks of 20,000 frames, the variants alternated, 7 rounds after a warm-up: medians of CPU
 * time per frame (process.cpuUsage: another process's load inflates it far less than wall time).
 */
import { createEngine, type Engine, FrameScanner } from "@movement-detection/movespec";
import { readBinaryFrames } from "../../services/detection/stream/binary-frames.js";
import { JsonFrameReader } from "../../services/detection/stream/json-frame-reader.js";
import { loadExample, readFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { batchMessage, binaryBatchMessage, prepareFrames } from "./load.js";

const BLOCK = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const spec = loadExample("squat");
const prepared = prepareFrames(readFrames("m01_s01"), []);

/** Messages of `size` frames covering seq 0..BLOCK-1 of the looped recording, pre-encoded. */
function messages(encoding: "json" | "binary", size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let seq = 0; seq < BLOCK; seq += size) {
    const count = Math.min(size, BLOCK - seq);
    if (encoding === "binary") out.push(binaryBatchMessage(prepared, seq, count));
    else if (size === 1) {
      const batch = JSON.parse(batchMessage(prepared, seq, 1)).frames[0];
      out.push(Buffer.from(JSON.stringify({ type: "frame", ...batch })));
    } else out.push(Buffer.from(batchMessage(prepared, seq, count)));
  }
  return out;
}

type Variant = { name: string; run: (engine: Engine) => void };

const scanner = new FrameScanner();
let reader = new JsonFrameReader();
/** What stream-connection.ts does with a JSON message since the scanner. */
const scanOrParse = (message: Buffer) => {
  const scanned = reader.read(message);
  return scanned ?? JSON.parse(message.toString("utf8"));
};
const oneByOne = messages("json", 1);
/**
 * The same frames with the values as float32 numbers print in JavaScript (a pose model's output
 * sent unrounded: up to 17 digits), mostly too long for the scanner, which leaves them to
 * JSON.parse.
 */
const longNumbers = oneByOne.map((message) => {
  const frame = JSON.parse(message.toString("utf8"));
  frame.keypoints = frame.keypoints.map((p: number[]) => p.map(Math.fround));
  return Buffer.from(JSON.stringify(frame));
});

const parsedFrames = JSON.parse(batchMessage(prepared, 0, BLOCK)).frames as unknown[];
const variants: Variant[] = [
  {
    name: "engine alone (parsed frames)",
    run: (engine) => {
      for (const frame of parsedFrames) engine.push(frame);
    },
  },
  ...[1, 40].map((size) => {
    const data = messages("json", size);
    return {
      name: `json, ${size === 1 ? "1 frame" : `${size} frames`} per message`,
      run: (engine: Engine) => {
        for (const message of data) {
          const parsed = JSON.parse(message.toString("utf8"));
          if (parsed.type === "frame") engine.push(parsed);
          else engine.pushMany(parsed.frames);
        }
      },
    };
  }),
  {
    name: "json, 1 frame, scanned",
    run: (engine) => {
      for (const message of oneByOne) engine.push(scanOrParse(message));
    },
  },
  {
    name: "json, 17 digits, JSON.parse",
    run: (engine) => {
      for (const message of longNumbers) engine.push(JSON.parse(message.toString("utf8")));
    },
  },
  {
    name: "json, 17 digits, scan tried",
    run: (engine) => {
      for (const message of longNumbers) engine.push(scanOrParse(message));
    },
  },
  ...[1, 40, 100].map((size) => {
    const data = messages("binary", size);
    return {
      name: `binary, ${size === 1 ? "1 frame" : `${size} frames`} per message`,
      run: (engine: Engine) => {
        for (const message of data) {
          const frames = readBinaryFrames(message, 33);
          if ("code" in frames) throw new Error(frames.message);
          engine.pushPacked(frames);
        }
      },
    };
  }),
];

const cpu = new Map<string, number[]>();
const measure = (variant: Variant, record: boolean) => {
  const engine = createEngine(spec);
  reader = new JsonFrameReader(); // a new connection
  const before = process.cpuUsage();
  variant.run(engine);
  const used = process.cpuUsage(before);
  if (engine.acceptedFrames !== BLOCK)
    throw new Error(`${variant.name}: ${engine.acceptedFrames} accepted`);
  if (!record) return;
  cpu.set(variant.name, [
    ...(cpu.get(variant.name) ?? []),
    ((used.user + used.system) * 1000) / BLOCK,
  ]);
};
for (const variant of variants) measure(variant, false);
const scannedShare = (data: Buffer[]) =>
  `${Math.round((100 * data.filter((m) => scanner.scan(m)).length) / data.length)} %`;
process.stdout.write(
  `messages the scanner reads: rounded values ${scannedShare(oneByOne)}, 17 digits ${scannedShare(longNumbers)}\n`,
);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) measure(variant, true);
}

const floor = median(cpu.get(variants[0].name) ?? []);
const json1 = median(cpu.get(variants[1].name) ?? []);
process.stdout.write(
  `detection's work per frame, ${BLOCK} frames per block, medians of ${ROUNDS} rounds (CPU ns per frame)\n`,
);
for (const variant of variants) {
  const ns = median(cpu.get(variant.name) ?? []);
  process.stdout.write(
    `  ${variant.name.padEnd(32)} ${ns.toFixed(0).padStart(6)} ns  (${(ns / floor).toFixed(2)}× the engine alone, ${(ns / json1).toFixed(2)}× json one by one)\n`,
  );
}
