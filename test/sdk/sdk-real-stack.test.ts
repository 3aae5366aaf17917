/**
 * The SDK (sdk/) against the real stack: the three credential forms, token refresh before expiry
 * and after a refusal, Idempotency-Key on the creating POSTs (the same key on a retry, so nothing
 * is created twice), typed calls of the authoring flow, and the stream client with its async
 * iterator of events on a real recording.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type DetectionEvent, MdsApiError, MdsClient } from "@movement-detection/sdk";
import { expect } from "chai";
import { exampleServer } from "../../examples/camera-kit/serve.js";
import { playFrames, readRecording } from "../../examples/stream-client/recording.js";
import { createProjectWithKey, createServiceAccount, type TestProject } from "../support/auth.js";
import { launchChromium } from "../support/chromium.js";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { requireSharedVideos } from "../support/shared-video.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const ROOT = join(import.meta.dirname, "../..");
const SQUAT = readFileSync(join(ROOT, "examples/movespecs/squat.yaml"), "utf8");
const RECORDING = join(ROOT, "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz");

/** A fetch that records what the SDK sent, and can fail chosen calls after they reached the server. */
function recordingFetch() {
  const calls: { method: string; path: string; headers: Headers }[] = [];
  let dropNext: ((method: string, path: string) => boolean) | undefined;
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    calls.push({ method: request.method, path, headers: request.headers });
    const response = await fetch(input, init);
    if (dropNext?.(request.method, path)) {
      dropNext = undefined;
      await response.text();
      // The server did the work; the client never hears of it (a connection lost mid-answer).
      throw new TypeError("fetch failed: the connection was reset");
    }
    return response;
  };
  return {
    calls,
    fetch: fetchImpl,
    dropResponseOf: (predicate: (method: string, path: string) => boolean) => {
      dropNext = predicate;
    },
  };
}

describe("SDK against the real stack (sdk/)", function () {
  this.timeout(120_000);
  let system: TestSystem;
  let project: TestProject;

  before(async () => {
    system = await startTestSystem();
    project = await createProjectWithKey(system);
  });
  after(async () => system?.stop());

  it("mints tokens from each credential form: api_key, key_id:key_secret, a service account", async () => {
    const account = await createServiceAccount(system, { projectId: project.projectId });
    const forms = [
      project.apiKey,
      { apiKey: project.apiKey },
      `${project.apiKeyId}:${project.apiKey}`,
      { keyId: project.apiKeyId, keySecret: project.apiKey },
      { serviceAccountId: account.serviceAccountId, serviceAccountSecret: account.secret },
    ];
    for (const credentials of forms) {
      const client = new MdsClient({ baseUrl: system.gatewayUrl, credentials });
      expect(await client.projectId()).to.equal(project.projectId);
      const loaded = await client.getProject({ project_id: project.projectId });
      expect(loaded.slug).to.equal(project.projectSlug);
    }
    const wrong = new MdsClient({
      baseUrl: system.gatewayUrl,
      credentials: `${project.apiKeyId}:msk_wrong`,
    });
    const refused = await wrong.getProject({ project_id: project.projectId }).catch((e) => e);
    expect(refused).to.be.instanceOf(MdsApiError);
    expect(refused).to.include({ status: 401, reason: "CREDENTIAL_INVALID", retryable: false });
    expect(refused.requestId).to.be.a("string");
  });

  it("refreshes the access token before it expires, and once after a refused one", async () => {
    let clock = Date.now();
    const recorder = recordingFetch();
    const client = new MdsClient({
      baseUrl: system.gatewayUrl,
      credentials: { apiKey: project.apiKey },
      fetch: recorder.fetch,
      now: () => clock,
    });
    const mints = () => recorder.calls.filter((c) => c.path === "/api/auth/access-tokens").length;
    await client.getProject({ project_id: project.projectId });
    await client.getProject({ project_id: project.projectId });
    expect(mints()).to.equal(1);
    clock += 850 * 1000; // 50 s before a 900 s token expires: inside the 60 s refresh margin
    await client.getProject({ project_id: project.projectId });
    expect(mints()).to.equal(2);

    let handedOut = 0;
    const valid = await client.accessToken();
    const backend = new MdsClient({
      baseUrl: system.gatewayUrl,
      // A token from a backend: the first one is stale, the next one good.
      credentials: {
        accessToken: () => (handedOut++ === 0 ? `${valid.split(".")[0]}.e30.c2ln` : valid),
      },
    });
    expect((await backend.getProject({ project_id: project.projectId })).project_id).to.equal(
      project.projectId,
    );
    expect(handedOut).to.equal(2);
  });

  it("sends an Idempotency-Key on the three creating POSTs, the same one on a retry: nothing is created twice", async () => {
    const recorder = recordingFetch();
    const client = new MdsClient({
      baseUrl: system.gatewayUrl,
      credentials: project.apiKey,
      fetch: recorder.fetch,
      retry: { baseDelayMs: 10 },
    });
    recorder.dropResponseOf((method, path) => method === "POST" && path === "/api/movespecs");
    const created = await client.createMoveSpec({
      body: { name: "Idempotent squat", project_id: project.projectId, visibility: "private" },
    });
    const posts = recorder.calls.filter((c) => c.method === "POST" && c.path === "/api/movespecs");
    expect(posts).to.have.length(2);
    const key = posts[0].headers.get("idempotency-key");
    expect(key).to.match(/^[0-9a-f-]{36}$/);
    expect(posts[1].headers.get("idempotency-key")).to.equal(key);
    // The first attempt created it; the retry answered that same MoveSpec.
    const again = await client.request("getMoveSpec", { movespec_id: created.movespec_id });
    expect(again.data.name).to.equal("Idempotent squat");
    expect(again.etag).to.match(/^"/);

    const { data: draft, etag } = await client.request("getDraft", {
      movespec_id: created.movespec_id,
    });
    expect(draft.movespec_id).to.equal(created.movespec_id);
    await client.replaceDraft(
      { movespec_id: created.movespec_id, body: { yaml_source: SQUAT } },
      { ifMatch: etag },
    );
    const stale = await client
      .replaceDraft(
        { movespec_id: created.movespec_id, body: { yaml_source: SQUAT } },
        { ifMatch: etag },
      )
      .catch((e) => e);
    expect(stale).to.include({ status: 412, reason: "ETAG_MISMATCH" });
    const version = await client.createVersion({ movespec_id: created.movespec_id });
    await client.createSession({
      body: { project_id: project.projectId, movespec_version_id: version.movespec_version_id },
    });
    const keyed = recorder.calls
      .filter((c) => c.headers.has("idempotency-key"))
      .map((c) => `${c.method} ${c.path}`);
    expect(new Set(keyed)).to.deep.equal(
      new Set([
        "POST /api/movespecs",
        `POST /api/movespecs/${created.movespec_id}/versions`,
        "POST /api/detection/sessions",
      ]),
    );
    const invalid = await client
      .createMoveSpec({ body: { name: "", project_id: "p1" } as never })
      .catch((e) => e);
    expect(invalid).to.include({ status: 400, reason: "FIELD_INVALID", retryable: false });
    expect(invalid.details.errors.map((e: { field: string }) => e.field)).to.deep.equal([
      "name",
      "project_id",
    ]);
  });

  it("publishes a MoveSpec, opens a session and streams a recording: events through the async iterator", async () => {
    const client = new MdsClient({ baseUrl: system.gatewayUrl, credentials: project.apiKey });
    const projectId = await client.projectId();
    const movespec = await client.createMoveSpec({
      body: { name: "Squat", project_id: projectId },
    });
    await client.replaceDraft({ movespec_id: movespec.movespec_id, body: { yaml_source: SQUAT } });
    const checked = await client.validateDraft({ movespec_id: movespec.movespec_id });
    expect(checked.ok).to.equal(true);
    const version = await client.createVersion({ movespec_id: movespec.movespec_id });
    await client.releaseVersion({
      movespec_id: movespec.movespec_id,
      version_id: version.movespec_version_id,
    });
    const session = await client.createSession({
      body: { project_id: projectId, movespec_id: movespec.movespec_id, mode: "replay" },
    });
    expect(session.status).to.equal("created");

    const stream = client.openStream(session, { batchSize: 30 });
    const ready = await stream.connect();
    expect(ready.session_id).to.equal(session.session_id);
    const events: DetectionEvent[] = [];
    const consuming = (async () => {
      for await (const event of stream.events()) events.push(event);
    })();
    await playFrames(readRecording(RECORDING), (frame) => stream.send(frame), { pace: "replay" });
    const end = await stream.finalize();
    await consuming;
    expect(end.status).to.equal("completed");
    expect(end.accepted_frames_total).to.equal(690);
    const reps = events.filter((e) => e.type === "rep.completed");
    expect(reps).to.have.length(10);
    expect(events.at(-1)?.type).to.equal("session.summary");
    expect(events.map((e) => e.event_seq)).to.deep.equal(events.map((_, i) => i + 1));
    const stored = await client.getSession({ session_id: session.session_id });
    expect(stored).to.include({ status: "completed", accepted_frames_total: 690 });
    expect(JSON.parse(stored.terminal_outcome ?? "{}").count).to.equal(10);
  });

  /** The example client on a recording (the squat) in replay, `batch` frames a message. */
  const runExample = (
    batch: number,
    recording = "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz",
  ) =>
    promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        "examples/stream-client/main.ts",
        "--spec",
        "examples/movespecs/squat.yaml",
        "--recording",
        recording,
        "--mode",
        "replay",
        "--batch",
        String(batch),
      ],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          MDS_API_KEY: project.apiKey,
          MDS_GATEWAY_URL: system.gatewayUrl,
        },
      },
    );

  it("the example client (examples/stream-client, on the SDK) runs the README's command", async () => {
    const { stdout } = await runExample(30);
    expect(stdout).to.contain("rep 10 at t=");
    expect(stdout).to.contain("completed: 690 frames, 10 repetitions");
    expect(stdout).to.match(/: completed, accepted_frames_total 690/);
  });

  it("the example client sends a batch too large for one message in several: 200 frames a batch", async () => {
    const { stdout } = await runExample(200);
    expect(stdout).to.contain("completed: 690 frames, 10 repetitions");
  });

  it("the example client reports a failed stream in one line, exit 1 (no unhandled rejection)", async () => {
    // One frame above the 64 KiB limit (no batch splits a frame): the gateway closes with 1009.
    const dir = await mkdtemp(join(tmpdir(), "mds-huge-frame-"));
    const recording = join(dir, "huge.jsonl");
    const point = Array.from({ length: 600 }, () => 0.123456789);
    await writeFile(
      recording,
      `${JSON.stringify({ seq: 0, t: 0, keypoints: Array.from({ length: 33 }, () => point) })}\n`,
    );
    try {
      const failed = await runExample(30, recording).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).to.equal(1);
      expect(failed?.stderr.trim()).to.equal("error: stream closed with 1009");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the camera kit (examples/camera-kit) counts a real squat from Chromium's fake camera: a live session, completed", async function () {
    skipUnderFakedClock(this, "Chromium");
    const clip = requireSharedVideos(this).get("squat_17.mp4")!;
    const dir = await mkdtemp(join(tmpdir(), "camera-kit-"));
    const client = new MdsClient({ baseUrl: system.gatewayUrl, credentials: project.apiKey });
    const projectId = await client.projectId();
    const movespec = await client.createMoveSpec({
      body: { name: "Squat", project_id: projectId },
    });
    await client.replaceDraft({ movespec_id: movespec.movespec_id, body: { yaml_source: SQUAT } });
    const version = await client.createVersion({ movespec_id: movespec.movespec_id });
    await client.releaseVersion({
      movespec_id: movespec.movespec_id,
      version_id: version.movespec_version_id,
    });
    // The fake camera plays a .y4m at its own rate, over and over: the clip made smaller by
    // Debian's ffmpeg (.ci/run installs it), in a temporary folder, never in the repository.
    const camera = join(dir, "squat.y4m");
    await promisify(execFile)("ffmpeg", [
      ...["-v", "error", "-i", clip.path, "-vf", "scale=640:360", "-pix_fmt", "yuv420p"],
      ...["-f", "yuv4mpegpipe", camera],
    ]);
    const server = exampleServer({
      gateway: system.gatewayUrl,
      apiKey: project.apiKey,
      movespecId: movespec.movespec_id,
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const browser = await launchChromium([
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-video-capture=${camera}`,
    ]);
    try {
      const context = await browser.newContext({ permissions: ["camera"] });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      // One squat every 4.4 s (the clip's length): the first comes back as an event.
      await page
        .locator("#count")
        .filter({ hasText: /^[1-9]\d*$/ })
        .waitFor({ timeout: 90_000 });
      expect(await page.textContent("#status")).to.match(/ with a pose\), [\d.]+\/s on wasm$/);
      await page.getByRole("button", { name: "Stop" }).click();
      await page
        .locator("#status")
        .filter({ hasText: /^Session completed: \d+ frames$/ })
        .waitFor({ timeout: 30_000 });
      const frames = Number((await page.textContent("#status"))?.match(/(\d+) frames$/)?.[1]);
      expect(frames).to.be.greaterThan(10);
    } finally {
      await browser.close();
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
