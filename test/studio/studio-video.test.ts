/**
 * The Studio's video path in Chromium against the whole system: a video file made at test time
 * (a photo of a standing person stretched sideways and back, test/support/fake-camera.ts, encoded
 * by Debian's ffmpeg as WebM/VP8 and MP4/H.264) is read in the page by the SDK's camera kit
 * (every frame through MoveNet, timed by the video), becomes the recording Run runs, runs through
 * a replay session, is counted and plotted, and downloads as a `.jsonl` the CLI's loader reads;
 * repetitions marked on the timeline download as the manifest `movespec fit` reads. Each test
 * brings the page to the state it needs itself: any one of them can run alone (`--grep`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createEngine, load } from "@movement-detection/movespec";
import { readFrames, recordingsAt } from "@movement-detection/movespec/cli";
import { expect } from "chai";
import type { Browser, Locator, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.js";
import { writeStretchVideo } from "../support/fake-camera.js";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const SHOTS = join(HERE, "screenshots");
const PHOTO = join(ROOT, "test", "fixtures", "camera", "standing-person.jpg");
/** The clip: 3 stretch-and-back cycles of 20 frames at 10 frames/s (6 s, 60 frames). */
const FPS = 10;
const FRAMES_PER_CYCLE = 20;
const CYCLES = 3;
/** The wrists apart and back together, against their own recent range (as the camera test). */
const ARMS_APART = `movespec: 1
name: Arms apart
signals:
  wrists_apart: distance(left_wrist, right_wrist)
  spread:
    adaptive: wrists_apart
    rest: low
    min_range: 0.3
phases:
  together: { enter: spread < 0.3, exit: spread > 0.4 }
  apart: { enter: spread > 0.6, exit: spread < 0.5 }
repetition:
  cycle: [together, apart, together]
fit:
  apart: { at: [phases.apart.enter, phases.apart.exit], range: [0.5, 0.8], step: 0.1 }
`;

type Frame = { seq: number; t: number; keypoints: number[][] | null };

describe("MoveSpec Studio: a video file to a counted, labelled recording (Chromium)", function () {
  this.timeout(120_000);
  let system: TestSystem;
  let browser: Browser | undefined;
  let page: Page;
  let dir: string;
  let webm: string;
  let mp4: string;
  const problems: string[] = [];

  before(async function () {
    skipUnderFakedClock(this, "Chromium");
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), "studio-video-"));
    const y4m = join(dir, "cycle.y4m");
    writeStretchVideo(PHOTO, y4m, {
      framesPerCycle: FRAMES_PER_CYCLE,
      framesPerSecond: FPS,
      maxStretch: 1.6,
    });
    webm = join(dir, "arms.webm");
    mp4 = join(dir, "arms-once.mp4");
    const ffmpeg = (args: string[]) =>
      execFileSync("ffmpeg", ["-y", "-loglevel", "error", ...args]);
    ffmpeg(["-stream_loop", String(CYCLES - 1), "-i", y4m, "-c:v", "libvpx", "-b:v", "1M", webm]);
    ffmpeg(["-i", y4m, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", mp4]);
    system = await startTestSystem({ devBootstrap: true });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const gateway = new URL(system.gatewayUrl).origin;
    await context.route("**/*", (route) => {
      const url = route.request().url();
      const own = url.startsWith(gateway) || url.startsWith("data:") || url.startsWith("blob:");
      if (!own) problems.push(`request beyond the gateway: ${url}`);
      return own ? route.continue() : route.abort();
    });
    page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${system.gatewayUrl}/studio`);
    await page.getByLabel("API key").fill(system.devCredentials?.api_key ?? "");
    await page.getByLabel("API key").press("Enter");
    await page.locator("#workspace").waitFor({ state: "visible" });
    const id = await createMoveSpec("Arms apart", ARMS_APART);
    await page.getByLabel("Open by id").fill(id);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.locator("#spec-title", { hasText: /^Arms apart$/ }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed")
      return page?.screenshot({ path: join(SHOTS, "video-failure.png"), fullPage: true });
    expect(problems, problems.join("\n")).to.deep.equal([]);
  });

  async function createMoveSpec(name: string, yaml: string): Promise<string> {
    const token = (await (
      await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: system.devCredentials?.api_key }),
      })
    ).json()) as { access_token: string };
    const call = (path: string, method: string, body: unknown) =>
      fetch(`${system.gatewayUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token.access_token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
    const created = await call("/api/movespecs", "POST", {
      name,
      project_id: system.devCredentials?.project_id,
    });
    const { movespec_id } = (await created.json()) as { movespec_id: string };
    const saved = await call(`/api/movespecs/${movespec_id}/draft`, "PUT", { yaml_source: yaml });
    expect(saved.status).to.equal(200);
    return movespec_id;
  }

  /** Reads `file` in the page and waits for its run: the frames per second it was read at. */
  async function readVideo(file: string, how: "input" | "drop" = "input"): Promise<number> {
    const name = file.split("/").pop() as string;
    const status = page.locator("#video-status");
    // A status line left from an earlier reading or run of the same file is not this one's.
    await page.evaluate(
      `for (const id of ["video-status", "bench-status"]) document.getElementById(id).textContent = ""`,
    );
    if (how === "input") await page.setInputFiles("#video-file", file);
    else await drop(file, "video/mp4");
    await status.filter({ hasText: `Read ${name}: ` }).waitFor({ timeout: 60_000 });
    await page
      .locator("#bench-status")
      .filter({ hasText: new RegExp(`^completed: \\d+ of \\d+ frames of ${name} accepted`) })
      .waitFor({ timeout: 30_000 });
    return Number(await page.getAttribute("#video-view", "data-frames-per-second"));
  }

  /** Drops `file` on the page as a person's drag from the desktop does: dragover, then drop. */
  async function drop(file: string, type: string): Promise<void> {
    const name = file.split("/").pop() as string;
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(readFileSync(file).toString("base64"))}), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
      const target = document.querySelector("#bench");
      for (const kind of ["dragenter", "dragover", "drop"])
        target.dispatchEvent(new DragEvent(kind, { dataTransfer: data, bubbles: true, cancelable: true }));
    })()`);
  }

  /** The WebM read and run, unless it is already the recording of the last run. */
  async function webmIsCurrent(): Promise<void> {
    const caption = await page.locator("#result-caption").textContent();
    if (!(await page.locator("#result").isVisible()) || !caption?.includes("arms.webm"))
      await readVideo(webm);
  }

  async function downloaded(button: Locator): Promise<{ name: string; text: string }> {
    const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
    const path = join(dir, download.suggestedFilename());
    await download.saveAs(path);
    return { name: download.suggestedFilename(), text: readFileSync(path, "utf8") };
  }

  it("reads a WebM file in the page into a recording timed by the video, runs it and counts it", async () => {
    const framesPerSecond = await readVideo(webm);
    console.log(`      (read in the page at ${framesPerSecond.toFixed(1)} frames/s)`);
    expect(framesPerSecond).to.be.above(0);
    expect(await page.textContent("#video-status")).to.match(
      /^Read arms\.webm: \d+ frames \(\d+ with a pose\) at [\d.]+ frames\/s, MoveNet Lightning on wasm\. It is the recording Run runs\.$/,
    );
    expect(await page.textContent("#bench-source")).to.match(
      /^Runs your video arms\.webm \(\d+ frames read\)\.$/,
    );
    // Counted by the service: the person's arms went apart and back three times (the first
    // may go to the adaptive range's settling), marked on the plot.
    const count = Number(await page.textContent("#count"));
    expect(count).to.be.within(2, CYCLES);
    expect(await page.locator("#reps tbody tr").count()).to.equal(count);
    expect(await page.locator("#plot canvas").count()).to.be.above(0);
    expect(await page.textContent("#result-caption")).to.equal(
      "Last run: arms.webm with version 1 of Arms apart.",
    );

    // Downloaded as the CLI reads it: every frame at its own time in the video (k / 10 s).
    const { name, text } = await downloaded(
      page.getByRole("button", { name: "Download recording" }),
    );
    expect(name).to.equal("arms.jsonl");
    const frames = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Frame);
    expect(frames.length).to.be.within(Math.floor(CYCLES * FRAMES_PER_CYCLE * 0.98), 60);
    expect(frames.map((f) => f.seq)).to.deep.equal(frames.map((_, i) => i));
    const slots = frames.map((f) => f.t * FPS);
    for (const [i, slot] of slots.entries())
      expect(Math.abs(slot - Math.round(slot)), `frame ${i} at ${frames[i].t}`).to.be.below(0.02);
    expect(frames.filter((f) => f.keypoints?.length === 17).length).to.be.above(frames.length / 2);
    // The CLI's loader and engine take every frame and count what the service counted.
    const read = readFrames(join(dir, name));
    expect(read.unreadable).to.equal(0);
    const spec = load(ARMS_APART).spec;
    if (!spec) throw new Error("ARMS_APART does not load");
    const engine = createEngine(spec, { topology: "coco-17", aspectRatio: 512 / 320 });
    const { events, rejected } = engine.pushMany(read.frames);
    expect(rejected).to.deep.equal([]);
    const reps = [...events, ...engine.finish().events].filter((e) => e.type === "rep.completed");
    expect(reps.length).to.equal(count);
  });

  it("marks repetitions on the timeline and downloads the manifest movespec fit reads", async () => {
    await webmIsCurrent();
    const timeline = page.locator("#timeline");
    const marks = timeline.locator("button.segment");
    await page.getByRole("button", { name: "Clear the marks" }).click({ force: true });
    expect(await marks.count()).to.equal(0);
    const box = await timeline.boundingBox();
    if (!box) throw new Error("no timeline on screen");
    const y = box.y + box.height / 2;
    const drag = async (from: number, to: number) => {
      await page.mouse.move(box.x + box.width * from, y);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 3 });
      await page.mouse.move(box.x + box.width * to, y, { steps: 3 });
      await page.mouse.up();
    };
    // Dragged either way; the second drag, right to left, lands before the first in time.
    await drag(0.5, 0.7);
    await drag(0.3, 0.1);
    await drag(0.75, 0.95);
    expect(await marks.count()).to.equal(3);
    expect(await marks.allTextContents()).to.deep.equal(["1", "2", "3"]);
    expect(await page.textContent("#labels-status")).to.equal("3 repetitions marked.");
    // A click on a mark removes it; a click elsewhere moves the time cursor, marks nothing.
    await marks.nth(1).click();
    expect(await marks.count()).to.equal(2);
    await page.mouse.click(box.x + box.width * 0.4, y);
    expect(await marks.count()).to.equal(2);
    expect(Number((await page.textContent("#scrub-time"))?.replace(" s", ""))).to.be.closeTo(
      0.4 * 5.9,
      0.25,
    );
    let manifest = JSON.parse(
      (await downloaded(page.getByRole("button", { name: "Download manifest" }))).text,
    );
    expect(manifest.clip_id).to.equal("arms");
    expect(manifest.expected_repetitions).to.equal(2);
    expect(manifest.topology).to.equal("coco-17");
    expect(manifest.aspect_ratio).to.equal(1.6);
    const [[s1, e1], [s2, e2]] = manifest.rep_segments_seconds as number[][];
    expect(s1).to.be.closeTo(0.1 * 5.9, 0.15);
    expect(e1).to.be.closeTo(0.3 * 5.9, 0.15);
    expect(s2).to.be.closeTo(0.75 * 5.9, 0.15);
    expect(e2).to.be.closeTo(0.95 * 5.9, 0.15);
    expect(manifest.rep_segments_frames).to.deep.equal(
      manifest.rep_segments_seconds.map((s: number[]) => s.map((t) => Math.round(t * FPS))),
    );

    // The service's repetitions as marks, and a count typed: what the manifest then says.
    await page.getByRole("button", { name: "Mark the counted repetitions" }).click();
    const counted = Number(await page.textContent("#count"));
    expect(await marks.count()).to.equal(counted);
    // One more than counted: the person saw one the MoveSpec missed.
    await page.getByLabel("Expected count").fill(String(counted + 1));
    await page.locator("#labels-status", { hasText: `the manifest says ${counted + 1}` }).waitFor();
    const saved = await downloaded(page.getByRole("button", { name: "Download manifest" }));
    expect(saved.name).to.equal("arms.manifest.json");
    manifest = JSON.parse(saved.text);
    expect(manifest.expected_repetitions).to.equal(counted + 1);
    expect(manifest.rep_segments_seconds).to.have.length(counted);
    // Beside its recording, the CLI's loader reads it as `movespec fit` does.
    const recording = await downloaded(page.getByRole("button", { name: "Download recording" }));
    const [read] = recordingsAt(join(dir, recording.name));
    expect(read).to.deep.include({ id: "arms", expected: counted + 1, topology: "coco-17" });
    expect(read.segments).to.deep.equal(manifest.rep_segments_seconds);
  });

  it("fits the MoveSpec's free numbers on the page's labelled recordings: before and after", async () => {
    await webmIsCurrent();
    await page.getByRole("button", { name: "Clear the marks" }).click({ force: true });
    await page.getByRole("button", { name: "Mark the counted repetitions" }).click();
    await page.getByLabel("Expected count").fill(String(CYCLES));
    await page.getByRole("button", { name: "Fit", exact: true }).click();
    const status = page.locator("#fit-status");
    await status.filter({ hasText: /^Fitted / }).waitFor({ timeout: 30_000 });
    expect(await status.textContent()).to.match(
      /^Fitted 1 number\(s\) on [1-9] labelled recording\(s\) in [\d.]+ s \(\d+ MoveSpecs tried\): exact \d of \d as given, \d of \d fitted\.$/,
    );
    const tables = page.locator("#fit-result table");
    expect(await tables.locator("caption").allTextContents()).to.deep.equal([
      "Before and after",
      "Free numbers",
      "Recordings",
    ]);
    const numbers = await tables
      .nth(1)
      .locator("tbody tr")
      .first()
      .locator("th, td")
      .allTextContents();
    expect(numbers.slice(0, 3)).to.deep.equal(["apart", "0.5 to 0.8 by 0.1", "0.6"]);
    // Offered for the editor only when the fit changed the number.
    const apply = page.getByRole("button", { name: "Put the fitted MoveSpec in the editor" });
    expect(await apply.isVisible()).to.equal(numbers[3] !== numbers[2]);
    const arms = tables
      .nth(2)
      .locator("tbody tr", { has: page.locator("th", { hasText: /^arms$/ }) });
    const row = await arms.locator("th, td").allTextContents();
    expect(row.slice(0, 3)).to.deep.equal([
      "arms",
      String(CYCLES),
      await page.textContent("#count"),
    ]);
  });

  it("shows the video and labelling views legibly at 1280x800", async () => {
    await webmIsCurrent();
    await page.setViewportSize({ width: 1280, height: 800 });
    const views = [".video-open", "#video-reading", "#labelling"];
    await page.locator("#labelling").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, "8-video-labelling-1280x800.png") });
    for (const view of views) expect(await page.locator(view).isVisible(), view).to.equal(true);
    const report = (await page.evaluate(`(() => {
      const out = { small: [], overlaps: [], offscreen: [] };
      const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
      const boxes = [];
      for (const root of ${JSON.stringify(views)}.map((v) => document.querySelector(v))) {
        for (const e of root.querySelectorAll("*")) {
          if (!shown(e)) continue;
          const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
          if (own && parseFloat(getComputedStyle(e).fontSize) < 12)
            out.small.push(e.id || e.className || e.tagName);
          const r = e.getBoundingClientRect();
          if (r.right > innerWidth + 0.5) out.offscreen.push(e.id || e.tagName);
          if (e.matches("button, input, label, .timeline, #video-status, #labels-status"))
            boxes.push({ name: e.id || e.textContent.trim(), r, inTimeline: !!e.parentElement.closest(".timeline") });
        }
      }
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          // Marks lie on the timeline by design; only marks among themselves must not overlap.
          if (a.inTimeline !== b.inTimeline) continue;
          const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
          const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
          if (x > 0.5 && y > 0.5) out.overlaps.push(a.name + " / " + b.name);
        }
      return out;
    })()`)) as { small: string[]; overlaps: string[]; offscreen: string[] };
    expect(report).to.deep.equal({ small: [], overlaps: [], offscreen: [] });
    // Lined up with the plot's time axis: a mark sits above the repetition it marks.
    const timeline = await page.locator("#timeline").boundingBox();
    const axis = await page.locator("#plot .u-over").first().boundingBox();
    if (!timeline || !axis) throw new Error("no timeline or no plot on screen");
    expect(timeline.x).to.be.closeTo(axis.x, 2);
    expect(timeline.x + timeline.width).to.be.closeTo(axis.x + axis.width, 2);
    expect(timeline.width).to.be.above(400);
    expect(timeline.height).to.be.at.least(30);
  });
  it("reads an MP4 (H.264) file dropped on the page; a Cancel or a file it cannot play keeps the recording read before", async () => {
    await readVideo(mp4, "drop");
    expect(await page.textContent("#bench-source")).to.match(/^Runs your video arms-once\.mp4 /);
    const frames = Number(
      /: (\d+) frames/.exec((await page.textContent("#video-status")) ?? "")?.[1],
    );
    expect(frames).to.be.within(FRAMES_PER_CYCLE - 1, FRAMES_PER_CYCLE);
    // Cancelled while reading: nothing of it is kept, the MP4 is still what Run runs.
    await page.setInputFiles("#video-file", webm);
    await page.locator("#video-status", { hasText: /^Reading arms\.webm: [1-9]/ }).waitFor();
    expect(await page.getByRole("button", { name: "Run (Ctrl+Enter)" }).isDisabled()).to.equal(
      true,
    );
    await page.getByRole("button", { name: "Cancel" }).click();
    await page
      .locator("#video-status", {
        hasText: "Cancelled: arms.webm was not read whole, nothing was kept.",
      })
      .waitFor();
    expect(await page.getByRole("button", { name: "Cancel" }).isVisible()).to.equal(false);
    expect(await page.textContent("#bench-source")).to.match(/^Runs your video arms-once\.mp4 /);
    expect(await page.getByRole("button", { name: "Run (Ctrl+Enter)" }).isEnabled()).to.equal(true);
    // A file the browser cannot play is said so, and changes nothing.
    const bad = join(dir, "not-a-video.webm");
    writeFileSync(bad, "this is text, not a video\n");
    await page.setInputFiles("#video-file", bad);
    await page
      .locator("#video-status", {
        hasText: /^Could not read not-a-video\.webm: the browser cannot play this video/,
      })
      .waitFor();
    expect(await page.textContent("#bench-source")).to.match(/^Runs your video arms-once\.mp4 /);
    // A recording dropped is the upload: the newer choice, it wins over the video read before.
    const jsonl = join(dir, "dropped.jsonl");
    writeFileSync(jsonl, `${JSON.stringify({ seq: 0, t: 0, keypoints: null })}\n`);
    await drop(jsonl, "application/jsonl");
    await page.locator("#bench-source", { hasText: "Runs your file dropped.jsonl." }).waitFor();
    await page.getByRole("button", { name: "Use the bundled one" }).click();
    expect(await page.textContent("#bench-source")).to.match(/^Runs the bundled /);
  });
});
