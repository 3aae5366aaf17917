/**
 * What a checkpoint and the end of a session cost the detection replica's event loop, for
 * sessions of 10, 60 and 240 minutes of squats (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/session-end.bench.ts [minutes,...]
 *
 * CPU time (process.cpuUsage, median of 7 runs, so a busy machine skews it less than wall time)
 * of the synchronous work the replica does, in this process, with the real functions:
 *
 * - baseline, as before issue 18: the engine keeps every record, so a checkpoint serialises all
 *   of them (JSON snapshot, BSON of the write), and the end stringifies the summary, the
 *   `session.summary` event and the snapshot in one turn of the event loop;
 * - now: records taken out at every checkpoint (every 5 s) and stored as JSON chunks; the end
 *   parses them back, merges and writes the summary once, in three turns (stream/session-lifecycle.ts):
 *   read back (one chunk per checkpoint with records, read by size as the record store does:
 *   `readSize`, about 256 KB of JSON per read), summary, messages and the end write.
 *
 * The figure that matters for other sessions' frames is the longest single turn.
 */

import {
  createEngine,
  type Engine,
  type EngineSnapshot,
  restoreEngine,
  type SummaryRecords,
} from "@movement-detection/movespec";
import { BSON } from "mongodb";
import { finalSummary, summaryEventOf } from "../../services/detection/domain/session-summary.js";
import { chunkRecords, readSize } from "../../services/detection/store/record-store.js";
import {
  endMessage,
  eventMessage,
  summaryEventMessage,
} from "../../services/detection/stream/stream-messages.js";
import { loadExample, readFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";

const MINUTES = (process.argv[2] ?? "10,60,240").split(",").map(Number);
const RUNS = 7;
const CHECKPOINT_FRAMES = 150; // 5 s at 30 fps
const SUMMARY_MAX_BYTES = 8 * 1024 * 1024;

/** Median CPU milliseconds of `work` (each run gets a fresh input from `prepare`). */
function cpuMs<T>(prepare: () => T, work: (input: T) => void): number {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const input = prepare();
    const before = process.cpuUsage();
    work(input);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 1000);
  }
  return median(runs);
}

const spec = loadExample("squat");
const lap = readFrames("m01_s01");
const frame = (k: number) => ({
  seq: k,
  t: Math.round((k / 30) * 1e4) / 1e4,
  keypoints: lap[k % lap.length].keypoints,
});

function checkpointWrite(engine: Engine, frames: number): void {
  BSON.serialize({
    $set: {
      checkpoint: {
        engine: JSON.stringify(engine.snapshot()),
        accepted_frames_total: frames,
        last_seq: frames - 1,
        at: new Date(),
        record_chunks: 0,
      },
      accepted_frames_total: frames,
    },
  });
}

/** A fresh copy of a session's engine to end (a snapshot round trip, as after a takeover). */
const engineFrom = (snapshot: EngineSnapshot): Engine =>
  restoreEngine(spec, JSON.parse(JSON.stringify(snapshot)));

const fmt = (ms: number) => ms.toFixed(ms < 1 ? 3 : 1).padStart(8);
console.log(
  `node ${process.version}; CPU ms, median of ${RUNS}; "turn" = the longest synchronous stretch\n`,
);
console.log(
  "session   reps  snapshot bytes (before -> now)   checkpoint (before -> now)   end, one turn before   end now: total / turns read, summary, write   summary bytes   chunks read back",
);
for (const minutes of MINUTES) {
  const frames = minutes * 60 * 30;
  const keeping = createEngine(spec); // as before: every record in the state
  const taking = createEngine(spec);
  const taken: SummaryRecords[] = [];
  for (let k = 0; k < frames; k += 1) {
    const f = frame(k);
    keeping.push(f);
    taking.push(f);
    if ((k + 1) % CHECKPOINT_FRAMES === 0) taken.push(taking.takeRecords());
  }
  const keptSnapshot = keeping.snapshot();
  const takenSnapshot = taking.snapshot();
  // As the record ledger writes them: each checkpoint's records in their own chunk(s).
  const storedChunks = taken
    .filter((records) => records.reps.length > 0 || records.holds.length > 0)
    .flatMap((records) => chunkRecords([records]))
    .map((chunk) => JSON.stringify(chunk));

  const checkpointBefore = cpuMs(
    () => undefined,
    () => checkpointWrite(keeping, frames),
  );
  const checkpointNow = cpuMs(
    () => undefined,
    () => checkpointWrite(taking, frames),
  );

  // Before: everything after the last checkpoint in one turn.
  let summaryBytes = 0;
  const endBefore = cpuMs(
    () => engineFrom(keptSnapshot),
    (engine) => {
      const { events, summary } = engine.finish();
      const outcome = JSON.stringify(summary);
      summaryBytes = outcome.length;
      for (const event of events) eventMessage(event);
      const checkpoint = JSON.stringify(engine.snapshot());
      BSON.serialize({ $set: { status: "completed", terminal_outcome: outcome, checkpoint } });
      endMessage({ status: "completed", acceptedFramesTotal: frames, terminalOutcome: outcome });
    },
  );

  // Now: the same end in its turns.
  const turns = {
    read: [] as number[],
    readTotal: [] as number[],
    summary: [] as number[],
    write: [] as number[],
  };
  let reads = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const engine = engineFrom(takenSnapshot);
    let before = process.cpuUsage();
    const elapsed = () => {
      const used = process.cpuUsage(before);
      before = process.cpuUsage();
      return (used.user + used.system) / 1000;
    };
    const { events } = engine.finish();
    const stored: SummaryRecords[] = [];
    let longestRead = 0;
    let allReads = 0;
    let bytes = 0;
    reads = 0;
    for (let i = 0, size = readSize(0); i < storedChunks.length; size = readSize(bytes / i)) {
      for (const text of storedChunks.slice(i, i + size)) {
        stored.push(JSON.parse(text) as SummaryRecords);
        bytes += text.length;
      }
      i = Math.min(storedChunks.length, i + size);
      reads += 1;
      const turn = elapsed();
      longestRead = Math.max(longestRead, turn);
      allReads += turn;
    }
    turns.read.push(longestRead);
    turns.readTotal.push(allReads);
    elapsed();
    const final = finalSummary(summaryEventOf(events), stored, SUMMARY_MAX_BYTES);
    turns.summary.push(elapsed());
    summaryEventMessage(final.text);
    const checkpoint = JSON.stringify(engine.snapshot());
    BSON.serialize({ $set: { status: "completed", terminal_outcome: final.text, checkpoint } });
    endMessage({ status: "completed", acceptedFramesTotal: frames, terminalOutcome: final.text });
    turns.write.push(elapsed());
  }
  const read = median(turns.read);
  const summaryTurn = median(turns.summary);
  const write = median(turns.write);
  const readTotal = median(turns.readTotal);
  console.log(
    `${String(minutes).padStart(4)} min ${String(keeping.finish().summary.count).padStart(6)}  ${String(JSON.stringify(keptSnapshot).length).padStart(10)} -> ${String(JSON.stringify(takenSnapshot).length).padStart(5)}        ${fmt(checkpointBefore)} -> ${fmt(checkpointNow)}        ${fmt(endBefore)}            ${fmt(readTotal + summaryTurn + write)} / ${fmt(read)} ${fmt(summaryTurn)} ${fmt(write)}   ${summaryBytes}   ${storedChunks.length} in ${reads} reads`,
  );
}
