/**
 * Streams a pose recording through the gateway and prints the detection events as they come.
 *
 *   node --import tsx examples/stream-client/main.ts --api-key msk_... \
 *     --spec examples/movespecs/squat.yaml \
 *     --recording test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz [--mode live|replay] [--batch 30]
 *
 * With --spec it publishes the MoveSpec first (needs movespecs:write); with --movespec-id it
 * uses an existing released one. See examples/stream-client/README.md.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { ApiClient } from "./api-client.js";
import { playFrames, readRecording } from "./recording.js";
import { type DetectionEvent, StreamClient } from "./stream-client.js";

const { values } = parseArgs({
  options: {
    gateway: { type: "string", default: "http://127.0.0.1:8080" },
    "api-key": { type: "string" },
    spec: { type: "string" },
    "movespec-id": { type: "string" },
    recording: { type: "string" },
    mode: { type: "string", default: "live" },
    batch: { type: "string", default: "1" },
    speed: { type: "string", default: "1" },
  },
});
const apiKey = values["api-key"] ?? process.env.API_KEY;
if (!apiKey || !values.recording || (!values.spec && !values["movespec-id"])) {
  console.error(
    "usage: main.ts --api-key KEY (--spec FILE.yaml | --movespec-id ID) --recording FILE.jsonl[.gz] [--mode live|replay] [--batch N]",
  );
  process.exit(2);
}

const api = new ApiClient(values.gateway as string);
const { project_id: projectId } = await api.login(apiKey);
const movespecId =
  values["movespec-id"] ??
  (await api.publishMoveSpec(
    projectId,
    basename(values.spec as string, ".yaml"),
    readFileSync(values.spec as string, "utf8"),
  ));

const mode = values.mode === "replay" ? "replay" : "live";
const session = await api.request("POST", "/api/detection/sessions", {
  project_id: projectId,
  movespec_id: movespecId,
  mode,
});
console.log(`session ${session.session_id} (${mode}) -> ${session.stream_url}`);

const print = (event: DetectionEvent) => {
  if (event.type === "rep.completed")
    console.log(`  rep ${event.total} at t=${event.t}s (score ${event.score})`);
  else if (event.type !== "phase.entered") console.log(`  ${event.type} at t=${event.t}s`);
};
const client = new StreamClient({
  streamUrl: session.stream_url as string,
  runtimeToken: session.runtime_token as string,
  batchSize: Number(values.batch),
  onEvent: print,
  onNotice: (notice) => console.log(`  ${notice.type}: ${notice.code} ${notice.message}`),
  onReconnect: (attempt, code) =>
    console.log(`  (connection lost: ${code}; reconnecting, attempt ${attempt})`),
});
await client.connect();
await playFrames(readRecording(values.recording as string), (frame) => client.send(frame), {
  pace: mode,
  speed: Number(values.speed),
});
const end = await client.finalize();
const summary = end.terminal_outcome ? JSON.parse(end.terminal_outcome) : undefined;
console.log(
  `${end.status}: ${end.accepted_frames_total} frames, ${summary?.count ?? 0} repetitions`,
);
const stored = await api.request("GET", `/api/detection/sessions/${session.session_id}`);
console.log(
  `GET /api/detection/sessions/${stored.session_id}: ${stored.status}, accepted_frames_total ${stored.accepted_frames_total}`,
);
