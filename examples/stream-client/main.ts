/**
 * Streams a pose recording through the gateway and prints the detection events as they come,
 * with the SDK (sdk/): `--help` lists the options and the environment it reads.
 *
 *   node --import tsx examples/stream-client/main.ts --api-key msk_... \
 *     --spec examples/movespecs/squat.yaml \
 *     --recording test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz [--mode live|replay] [--batch 30] [--encoding binary]
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  MdsApiError,
  MdsClient,
  MdsNetworkError,
  StreamClientError,
} from "@movement-detection/sdk";
import { parseStreamArgs } from "./cli.js";
import { playFrames, RecordingError, readRecording } from "./recording.js";

const io = {
  stdout: (t: string) => process.stdout.write(t),
  stderr: (t: string) => process.stderr.write(t),
};
const options = parseStreamArgs(process.argv.slice(2), process.env, io);
if (typeof options === "number") process.exit(options);

try {
  const frames = readRecording(options.recording);
  const client = new MdsClient({ baseUrl: options.gateway, credentials: options.credential });
  const projectId = await client.projectId();
  const movespecId =
    options.movespecId ?? (await publish(client, projectId, options.spec as string));
  const session = await client.createSession({
    body: { project_id: projectId, movespec_id: movespecId, mode: options.mode },
  });
  console.log(`session ${session.session_id} (${options.mode}) -> ${session.stream_url}`);

  const stream = client.openStream(session, {
    batchSize: options.batch,
    frameEncoding: options.encoding,
    onNotice: (notice) => console.log(`  ${notice.type}: ${notice.code} ${notice.message}`),
    onReconnect: (attempt, code) =>
      console.log(`  (connection lost: ${code}; reconnecting, attempt ${attempt})`),
  });
  await stream.connect();
  const printing = (async () => {
    for await (const event of stream.events()) {
      if (event.type === "rep.completed")
        console.log(`  rep ${event.total} at t=${event.t}s (score ${event.score})`);
      else if (event.type !== "phase.entered") console.log(`  ${event.type} at t=${event.t}s`);
    }
  })();
  // Should the stream fail, the failure is caught below (from send or finalize): the printing
  // loop's own rejection of the same failure is not a second, unhandled one.
  printing.catch(() => undefined);
  await playFrames(frames, (frame) => stream.send(frame), {
    pace: options.mode,
    speed: options.speed,
  });
  const end = await stream.finalize();
  await printing;
  const summary = end.terminal_outcome ? JSON.parse(end.terminal_outcome) : undefined;
  console.log(
    `${end.status}: ${end.accepted_frames_total} frames, ${summary?.count ?? 0} repetitions`,
  );
  const stored = await client.getSession({ session_id: session.session_id });
  console.log(
    `GET /api/detection/sessions/${stored.session_id}: ${stored.status}, accepted_frames_total ${stored.accepted_frames_total}`,
  );
} catch (error) {
  // Failures a user can act on are one line, never a stack trace.
  if (error instanceof MdsApiError) {
    console.error(
      `error: ${error.status} ${error.reason}: ${error.message} (request ${error.requestId})`,
    );
  } else if (error instanceof MdsNetworkError || error instanceof StreamClientError) {
    console.error(`error: ${error.message}`);
  } else if (
    (error as NodeJS.ErrnoException).code === "ENOENT" ||
    error instanceof RecordingError
  ) {
    console.error(`error: ${(error as Error).message}`);
  } else throw error;
  process.exitCode = 1;
}

/** Creates a MoveSpec from YAML, freezes it into version 1 and releases it. */
async function publish(client: MdsClient, projectId: string, file: string): Promise<string> {
  const yaml = readFileSync(file, "utf8");
  const movespec = await client.createMoveSpec({
    body: { name: basename(file, ".yaml"), project_id: projectId },
  });
  const id = movespec.movespec_id;
  await client.replaceDraft({ movespec_id: id, body: { yaml_source: yaml } });
  const version = await client.createVersion({ movespec_id: id });
  await client.releaseVersion({ movespec_id: id, version_id: version.movespec_version_id });
  return id;
}
