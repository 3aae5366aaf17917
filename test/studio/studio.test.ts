/**
 * MoveSpec Studio in a real browser (Debian's Chromium through playwright-core) against the whole
 * system, with the network beyond the gateway cut off: sign in with the development key, create
 * the squat MoveSpec, type an error and see its marker on the right line, fix it, save (If-Match),
 * version, release, run a bundled UI-PRMD recording through a replay session and see it counted
 * (and marked on the plot), upload a recording and run it. No console error, no CSP violation.
 * Screenshots go to test/studio/screenshots/ (gitignored) for a person to look at.
 *
 * One browser page serves every test (a fresh page and sign-in each would cost a second a test),
 * but no test needs another to have run: each signs the page in if it is not, and makes, opens
 * and runs its own MoveSpec (helpers below); any one passes alone or in any order.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { expect } from "chai";
import type { Browser, Dialog, Page, WebSocketRoute } from "playwright-core";
import { studioCsp } from "../../gateway/studio/routes.js";
import { createProjectWithToken } from "../support/auth.js";
import { launchChromium } from "../support/chromium.js";
import { eventually } from "../support/eventually.js";
import { writeStretchVideo } from "../support/fake-camera.js";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const SHOTS = join(HERE, "screenshots");
const RECORDINGS = join(ROOT, "test", "fixtures", "posedata", "uiprmd");
/** A rendered figure standing (from @vladmandic/human's own samples: test/fixtures/camera). */
const CAMERA_PHOTO = join(ROOT, "test", "fixtures", "camera", "standing-person.jpg");
/**
 * Held while both shoulders are seen level: what a photo of a standing person shows. Tracking is
 * lost only after 60 s: without a GPU the model may take seconds a frame.
 */
/**
 * What the camera test counts: the wrists moving apart and back together, read against their own
 * recent range (the fake camera's person is stretched sideways and back: test/support/fake-camera.ts).
 */
const ARMS_APART = `movespec: 1
name: Arms apart
signals:
  wrists_apart: distance(left_wrist, right_wrist) # in torso lengths
  spread:
    adaptive: wrists_apart
    rest: low
    min_range: 0.3
tracking:
  landmarks: [left_wrist, right_wrist]
  lost_after: 60s
phases:
  together: { enter: spread < 0.3, exit: spread > 0.4 }
  apart: { enter: spread > 0.6, exit: spread < 0.5 }
repetition:
  cycle: [together, apart, together]
`;
/** The line the editing tests type into: the up phase's exit in examples/movespecs/squat.yaml. */
const LINE_TEXT = "    exit: depth > 0.4";
const SQUAT = readFileSync(join(ROOT, "examples/movespecs/squat.yaml"), "utf8");
const LINE = SQUAT.split("\n").indexOf(LINE_TEXT) + 1;
/** The squat with that line tuned, as the editing test leaves it: where most other tests start. */
const TUNED = SQUAT.replace(`${LINE_TEXT}\n`, `${LINE_TEXT} # tuned in the Studio\n`);

describe("MoveSpec Studio (/studio) in Chromium", function () {
  this.timeout(180_000);
  let system: TestSystem;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const foreign: string[] = [];
  /** Console errors a step expects (the 412 of a refused save), removed when seen. */
  const expectedErrors: RegExp[] = [];
  /** While a step cuts the API off: the browser logs each request it could not send. */
  let offline = false;
  /** The page's securitypolicyviolation events, as `directive: blocked`. */
  const violations: string[] = [];
  /** Set by the reconnecting test while it holds the page's WebSockets (see there). */
  let webSockets: ((socket: WebSocketRoute) => void) | undefined;
  /** The editor's line at `index` (0-based, as CodeMirror renders it). */
  const editorLine = (index: number) => page.locator(".cm-line").nth(index);
  let webSocketsRouted = false;

  before(async function () {
    skipUnderFakedClock(this, "Chromium");
    mkdirSync(SHOTS, { recursive: true });
    system = await startTestSystem({ devBootstrap: true });
    // The camera: Chromium's fake capture device playing a photo of a standing person stretched
    // sideways and back every 2 s (her wrists and ankles move apart and together), looped.
    const camera = join(tmpdir(), `studio-camera-${process.pid}.y4m`);
    writeStretchVideo(CAMERA_PHOTO, camera, {
      framesPerCycle: 60,
      framesPerSecond: 30,
      maxStretch: 1.6,
    });
    browser = await launchChromium([
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-video-capture=${camera}`,
    ]);
    const context = await browser.newContext({
      viewport: { width: 1280, height: 1000 },
      permissions: ["camera"],
    });
    const gateway = new URL(system.gatewayUrl).origin;
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(gateway) || url.startsWith("data:") || url.startsWith("blob:"))
        return route.continue();
      foreign.push(url);
      return route.abort();
    });
    page = await context.newPage();
    // Listened for in the page itself, from before its first script: a violation is an event
    // whether or not the browser also logs it.
    await page.exposeFunction("reportCspViolation", (text: string) => violations.push(text));
    await page.addInitScript({
      content: `window.cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e) => {
        const text = e.effectiveDirective + ": " + e.blockedURI;
        window.cspViolations.push(text);
        window.reportCspViolation(text);
      });`,
    });
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      if (offline && /ERR_INTERNET_DISCONNECTED/.test(message.text())) return;
      const expected = expectedErrors.findIndex((pattern) => pattern.test(message.text()));
      if (expected >= 0) expectedErrors.splice(expected, 1);
      else problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await system?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== "failed" || !page) return;
    const name = this.currentTest.title.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 60);
    await page.screenshot({ path: join(SHOTS, `failure-${name}.png`), fullPage: true });
    // Whatever the failed test left (a run, a route, a dialog's question) goes with the page: the
    // next test signs in afresh.
    await leaving(() => page.goto("about:blank")).catch(() => {});
  });

  /**
   * A test of the page: besides its own checks, no console error (but those it expects), no CSP
   * violation and nothing fetched elsewhere while it ran. Checked in the test, not in an
   * afterEach hook: a failed hook would skip every test after it.
   */
  const studioIt = (title: string, body: () => Promise<void>) =>
    it(title, async () => {
      problems.length = 0;
      violations.length = 0;
      foreign.length = 0;
      expectedErrors.length = 0;
      await body();
      expect(problems, problems.join("\n")).to.deep.equal([]);
      expect(violations, violations.join("\n")).to.deep.equal([]);
      expect(foreign).to.deep.equal([]);
    });

  const shot = (name: string) =>
    page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const token = async () => {
    const response = await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: system.devCredentials?.api_key }),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${system.gatewayUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${await token()}`, ...init.headers },
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        movespec_id: string;
        movespec_version_id: string;
        yaml_source: string;
        version_number: number;
        items: unknown[];
      },
    };
  };
  const send = (method: string, path: string, body?: unknown) =>
    api(path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  /**
   * Runs `action` answering the page's "unsaved changes" questions yes (a test before may have
   * left its text unsaved); without a listener Playwright dismisses every dialog.
   */
  async function leaving<T>(action: () => Promise<T>): Promise<T> {
    const accept = (dialog: Dialog) => void dialog.accept();
    page.on("dialog", accept);
    try {
      return await action();
    } finally {
      page.off("dialog", accept);
    }
  }

  /** The page signed in with the development key, as a person does, unless it already is. */
  async function signedIn() {
    if (await page.locator("#workspace").isVisible()) return;
    await leaving(() => page.goto(`${system.gatewayUrl}/studio`));
    await page.getByLabel("API key").fill(system.devCredentials?.api_key ?? "");
    await page.getByLabel("API key").press("Enter");
    await page.locator("#workspace").waitFor({ state: "visible" });
  }

  /** Opens one of the project's MoveSpecs in the page by its id, as "Open by id" does. */
  async function openById(id: string) {
    await leaving(async () => {
      await page.getByLabel("Open by id").fill(id);
      await page.getByRole("button", { name: "Open", exact: true }).click();
      await page.locator(`#editor-panel[data-movespec-id="${id}"]`).waitFor();
    });
    await page.locator("#editor-status", { hasText: /^Draft loaded\.$/ }).waitFor();
  }

  /**
   * A new MoveSpec of the project made through the API (its draft `yaml`, the squat by default;
   * with `release`, version 1 of it released), opened in the signed-in page unless `open` is false.
   */
  async function ownMoveSpec(
    name: string,
    options: { yaml?: string; release?: boolean; open?: boolean } = {},
  ): Promise<string> {
    const created = await send("POST", "/api/movespecs", {
      name,
      project_id: system.devCredentials?.project_id,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.movespec_id;
    const draft = await send("PUT", `/api/movespecs/${id}/draft`, {
      yaml_source: options.yaml ?? SQUAT,
    });
    expect(draft.status, JSON.stringify(draft.body)).to.equal(200);
    if (options.release) {
      const version = await send("POST", `/api/movespecs/${id}/versions`);
      expect(version.status, JSON.stringify(version.body)).to.equal(201);
      const path = `/api/movespecs/${id}/versions/${version.body.movespec_version_id}/release`;
      const released = await send("POST", path);
      expect(released.status, JSON.stringify(released.body)).to.equal(200);
    }
    if (options.open !== false) {
      await signedIn();
      await openById(id);
      await page
        .locator("#spec-title")
        .filter({ hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) })
        .waitFor();
    }
    return id;
  }

  /** Run runs the bundled m01_s01 again, not a file chosen by a test before. */
  async function chooseBundled() {
    const again = page.getByRole("button", { name: "Use the bundled one" });
    if (await again.isVisible()) await again.click();
    await page
      .locator("#bench-source", { hasText: /^Runs the bundled m01_s01 \(deep squat\)\.$/ })
      .waitFor();
  }

  /** Runs the open MoveSpec on the bundled m01_s01 with the keyboard: its 10 squats counted. */
  async function runBundledByKey() {
    await chooseBundled();
    await page.keyboard.press("Control+Enter");
    await page
      .locator("#bench-status")
      .filter({ hasText: /^completed:/ })
      .waitFor({ timeout: 60_000 });
    expect(await page.textContent("#count")).to.equal("10");
  }

  /** The MoveSpec whose run of m01_s01 the page shows, if it still does (see bundledRun). */
  let bundled: { id: string; name: string } | undefined;
  let bundledRuns = 0;

  /**
   * The tuned squat's released version 1 run on the bundled m01_s01 (10 repetitions) and shown
   * in the page: the run a test before left on the screen if it still is, else a new one.
   */
  async function bundledRun() {
    await signedIn();
    if (bundled) {
      const shown =
        (await page.getAttribute("#editor-panel", "data-movespec-id")) === bundled.id &&
        (await page.locator("#result").isVisible()) &&
        (await page.textContent("#result-caption")) ===
          `Last run: m01_s01 with version 1 of ${bundled.name}.` &&
        (await page.getByRole("button", { name: /Save draft/ }).isDisabled());
      if (shown) return bundled;
    }
    const name = `Bundled squat ${++bundledRuns}`;
    const id = await ownMoveSpec(name, { yaml: TUNED, release: true });
    await runBundledByKey();
    bundled = { id, name };
    return bundled;
  }

  it("serves the page under a strict CSP, and only allow-listed files", async () => {
    const response = await fetch(`${system.gatewayUrl}/studio`);
    expect(response.status).to.equal(200);
    const html = await response.text();
    const nonce = /<meta name="style-nonce" content="([A-Za-z0-9+/=]{24})"/.exec(html)?.[1];
    expect(nonce, "a style nonce in the page").to.be.a("string");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).to.equal(studioCsp(nonce as string));
    // WebAssembly may be compiled (the pose model's backend without a GPU); scripts and eval not.
    expect(csp).to.contain("script-src 'self' 'wasm-unsafe-eval';");
    expect(csp).to.not.contain("'unsafe-eval'").and.not.contain("'unsafe-inline'");
    expect(html).to.not.match(/https?:\/\//);
    // Its own (empty) icon: a browser with a window would otherwise fetch /favicon.ico, a 404.
    expect(html).to.contain('<link rel="icon" href="data:," />');
    // A new nonce on every load.
    const again = await (await fetch(`${system.gatewayUrl}/studio`)).text();
    expect(again).to.not.contain(nonce);
    for (const probe of [
      "/studio/recordings/nope.jsonl.gz",
      "/studio/recordings/..%2f..%2findex.json",
      "/studio/recordings/m01_s01.manifest.json",
      "/studio/models/blazeface.json",
      "/studio/vendor/human.js",
      "/studio/vendor/tfjs-backend-wasm-threaded-simd.wasm",
    ]) {
      expect((await fetch(`${system.gatewayUrl}${probe}`)).status, probe).to.equal(404);
    }
    for (const [path, type] of [
      ["/studio/vendor/human.esm.js", "text/javascript; charset=utf-8"],
      ["/studio/models/movenet-lightning.json", "application/json; charset=utf-8"],
      ["/studio/models/movenet-lightning.bin", "application/octet-stream"],
      ["/studio/vendor/tfjs-backend-wasm-simd.wasm", "application/wasm"],
      ["/studio/vendor/tfjs-backend-wasm.wasm", "application/wasm"],
    ]) {
      const served = await fetch(`${system.gatewayUrl}${path}`, { method: "HEAD" });
      expect(served.status, path).to.equal(200);
      expect(served.headers.get("content-type"), path).to.equal(type);
    }
    const recording = await fetch(`${system.gatewayUrl}/studio/recordings/m01_s01.jsonl.gz`);
    expect(Buffer.from(await recording.arrayBuffer())).to.deep.equal(
      readFileSync(join(RECORDINGS, "m01_s01.jsonl.gz")),
    );
  });

  studioIt(
    "says the optional examples could not be loaded when samples.json is not their list",
    async () => {
      // Said as an alert (announced at once), in words.
      const error = page.getByRole("alert");
      const answers = [
        { status: 404, contentType: "text/html", body: "<h1>Not Found</h1>" },
        { status: 200, contentType: "text/html", body: "<html>a proxy's page</html>" },
      ];
      const said: (string | null)[] = [];
      for (const answer of answers) {
        if (answer.status === 404) expectedErrors.push(/status of 404/);
        await page.route("**/studio/samples.json", (route) => route.fulfill(answer));
        try {
          await leaving(() => page.goto(`${system.gatewayUrl}/studio`));
          await page.locator("#sign-in").waitFor({ state: "visible" });
          said.push(await error.textContent());
          expect(await error.getAttribute("id")).to.equal("sign-in-error");
          // Signing in is still offered: the samples are only a convenience.
          expect(await page.getByLabel("API key").isEditable()).to.equal(true);
        } finally {
          await page.unroute("**/studio/samples.json");
        }
      }
      expect(said).to.deep.equal([
        "The bundled examples and recordings could not be loaded (the service answered HTTP 404). You can still sign in and work without them.",
        "The bundled examples and recordings could not be loaded (the service's answer was not their list). You can still sign in and work without them.",
      ]);
      expect(expectedErrors).to.deep.equal([]);
    },
  );

  studioIt(
    "signs in with the development key (kept out of storage), and creates the squat MoveSpec",
    async () => {
      await leaving(() => page.goto(`${system.gatewayUrl}/studio`));
      await page.getByLabel("API key").fill(system.devCredentials?.api_key ?? "");
      await page.getByLabel("API key").press("Enter");
      await page.locator("#workspace").waitFor({ state: "visible" });
      expect(await page.textContent("#sign-in-error")).to.equal("");
      // The project by its name; its id (a UUID says nothing to a reader) only on hover.
      expect(await page.textContent("#who")).to.match(/^Project \S/);
      expect(await page.textContent("#who")).to.not.contain(system.devCredentials?.project_id);
      expect(await page.getAttribute("#who", "title")).to.contain(
        system.devCredentials?.project_id,
      );
      const stored = await page.evaluate("JSON.stringify({ ...localStorage, ...sessionStorage })");
      expect(stored).to.not.contain(system.devCredentials?.api_key);
      expect(await page.context().cookies()).to.deep.equal([]);

      // Nothing open yet: nothing to find fault with (no "empty MoveSpec" error), and said so.
      await page.locator("#issues li.hint", { hasText: "Open or create a MoveSpec" }).waitFor();
      await page.waitForTimeout(500); // the markers' debounce (350 ms) and then some
      expect(await page.locator(".cm-lint-marker-error, .cm-lintRange-error").count()).to.equal(0);
      expect(await page.locator("#issues li.error").count()).to.equal(0);

      await page.getByText("New MoveSpec").click();
      await page.getByLabel("Name").fill("Studio squat");
      expect(await page.getByLabel("Start from").inputValue()).to.equal("squat");
      await page.getByRole("button", { name: "Create", exact: true }).click();
      await page
        .locator("#spec-title")
        .filter({ hasText: /^Studio squat$/ })
        .waitFor();
      const movespecId = (await page.getAttribute("#editor-panel", "data-movespec-id")) ?? "";
      expect(movespecId).to.match(/^[0-9a-f-]{36}$/);
      // Listed by the service under "Your MoveSpecs" (once, among what other tests made), and no
      // UUID in the page's text.
      const listed = page.locator("#mine li", {
        has: page.getByRole("button", { name: "Studio squat", exact: true }),
      });
      await listed.waitFor();
      expect(await listed.count()).to.equal(1);
      expect(await listed.getAttribute("data-movespec-id")).to.equal(movespecId);
      expect(await page.textContent("#spec-meta")).to.not.contain(movespecId);
    },
  );

  studioIt(
    "lists the project's MoveSpecs in a new browser signed in with the same key, and finds them",
    async () => {
      // The latest edited of the project's MoveSpecs: first in the list.
      const movespecId = await ownMoveSpec("Listed squat", { open: false });
      // A new context is a new browser profile: no storage, no cookies, nothing remembered.
      const context = await (browser as Browser).newContext({
        viewport: { width: 1280, height: 800 },
      });
      try {
        const other = await context.newPage();
        await other.goto(`${system.gatewayUrl}/studio`);
        await other.getByLabel("API key").fill(system.devCredentials?.api_key ?? "");
        await other.getByLabel("API key").press("Enter");
        const mine = other.locator("#mine li");
        await mine.filter({ hasText: "Listed squat" }).waitFor();
        expect(await mine.first().textContent()).to.match(
          /^Listed squatprivate · not released · edited /,
        );
        await other.getByLabel("Find yours").fill("SQUAT");
        await other.getByRole("button", { name: "Find", exact: true }).click();
        await mine.filter({ hasText: "Listed squat" }).waitFor();
        await other.getByLabel("Find yours").fill("no such words");
        await other.getByRole("button", { name: "Find", exact: true }).click();
        await mine.filter({ hasText: "None of yours matches." }).waitFor();
        // Answers out of order: a listing held back (the order changed, no words) answers after the
        // search typed next; the page keeps the answer to the latest.
        await other.getByLabel("Find yours").fill("");
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const listing = (url: string) =>
          /\/api\/projects\/[^/]+\/movespecs\?/.test(url) && !new URL(url).searchParams.has("q");
        const heldAnswered = other.waitForResponse((r) => listing(r.url()));
        await context.route("**/api/projects/*/movespecs?*", async (route) => {
          if (listing(route.request().url())) await held;
          return route.continue();
        });
        await other.getByLabel("Order yours by").selectOption("name");
        await other.getByLabel("Find yours").fill("no such words");
        await other.getByRole("button", { name: "Find", exact: true }).click();
        await mine.filter({ hasText: "None of yours matches." }).waitFor();
        release();
        await context.unroute("**/api/projects/*/movespecs?*");
        await heldAnswered;
        await other.waitForTimeout(200);
        expect(await mine.allTextContents()).to.deep.equal(["None of yours matches."]);
        await other.getByLabel("Order yours by").selectOption("recent");
        // Opened from the list, in the other browser, as in the first.
        await other.getByLabel("Find yours").fill("");
        await other.getByRole("button", { name: "Find", exact: true }).click();
        await other.locator("#mine button.link", { hasText: "Listed squat" }).click();
        await other.locator("#editor-status", { hasText: "Draft loaded." }).waitFor();
        expect(await other.getAttribute("#editor-panel", "data-movespec-id")).to.equal(movespecId);
      } finally {
        await context.close();
      }
    },
  );

  studioIt("marks an error at its line as you type, and clears it when fixed", async () => {
    await ownMoveSpec("Marked squat");
    const line = editorLine(LINE - 1);
    expect(LINE).to.be.above(0);
    expect(await line.textContent()).to.equal(LINE_TEXT);
    await line.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" and no_such_signal > 1");
    const marked = page.locator(".cm-line", { has: page.locator(".cm-lintRange-error") });
    await marked.first().waitFor();
    expect(await marked.count()).to.equal(1);
    expect(await marked.textContent()).to.contain("no_such_signal");
    expect(await page.locator("#issues li.error").first().textContent()).to.contain(
      `line ${LINE},`,
    );
    expect(await page.locator(".cm-gutter-lint .cm-lint-marker-error").count()).to.equal(1);
    await shot("1-error-marker");
    // The problem is a way to its line: the cursor goes there, the focus into the editor.
    await page.locator(".cm-line").first().click();
    await page.locator("#issues li.error button", { hasText: `line ${LINE},` }).click();
    expect(await page.locator(".cm-activeLine").textContent()).to.contain("no_such_signal");
    expect(await page.evaluate("document.activeElement.classList.contains('cm-content')")).to.equal(
      true,
    );
    await page.keyboard.press("End");

    for (const _ of " and no_such_signal > 1") await page.keyboard.press("Backspace");
    await page.keyboard.type(" # tuned in the Studio");
    await page.locator("#issues li.ok").waitFor();
    expect(await page.locator(".cm-lintRange-error").count()).to.equal(0);
  });

  studioIt(
    "names an over-indented line itself, not only the lines YAML then misreads",
    async () => {
      await ownMoveSpec("Indented squat");
      const lines = SQUAT.split("\n");
      const hipAngle = lines.findIndex((l) => l.startsWith("  hip_angle:")) + 1;
      const line = editorLine(hipAngle - 1);
      await line.click();
      await page.keyboard.press("Home");
      await page.keyboard.type("  ");
      const first = page.locator("#issues li.error").first();
      await first.filter({ hasText: "indented 4 spaces" }).waitFor();
      expect(await first.textContent()).to.contain(`line ${hipAngle},`);
      const marked = page.locator(".cm-line", { has: page.locator(".cm-lintRange-error") });
      expect(await marked.allTextContents()).to.include(`    ${lines[hipAngle - 1].trimStart()}`);
      await page.keyboard.press("Control+z");
      await page.locator("#issues li.ok").waitFor();
      expect(await line.textContent()).to.equal(lines[hipAngle - 1]);
    },
  );

  studioIt("types over a selection of several lines without a CSP violation", async () => {
    await ownMoveSpec("Selected squat", { yaml: TUNED });
    const editorText = () => page.locator(".cm-content").innerText();
    const before = await editorText();
    const lineCount = await page.locator(".cm-line").count();
    // From the `up:` line, two lines down to the middle of the tuned `exit:` line.
    expect(await editorLine(LINE - 3).textContent()).to.equal("  up:");
    await editorLine(LINE - 3).click();
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.type("x");
    await editorLine(LINE - 3)
      .filter({ hasText: /x/ })
      .waitFor();
    expect(await editorLine(LINE - 3).textContent()).to.match(
      /^ *x *exit: depth > 0\.4 # tuned in the Studio$/,
    );
    expect(await page.locator(".cm-line").count()).to.equal(lineCount - 2);
    // A violation event is a task queued by the blocked change: read the page's own list after
    // a frame and two later tasks, not after a guessed time (a loaded machine is slow).
    const inPage = await page.evaluate(`new Promise((resolve) =>
      requestAnimationFrame(() => setTimeout(() => setTimeout(() => resolve(window.cspViolations)))))`);
    expect(inPage, String(inPage)).to.deep.equal([]);
    expect(violations, violations.join("\n")).to.deep.equal([]);
    await page.keyboard.press("Control+z");
    expect(await editorText()).to.equal(before);
  });

  studioIt("saves with If-Match, creates a version and releases it", async () => {
    const movespecId = await ownMoveSpec("Versioned squat");
    await editorLine(LINE - 1).click();
    await page.keyboard.press("End");
    await page.keyboard.type(" # tuned in the Studio");
    await page
      .getByRole("button", { name: /Save draft/ })
      .and(page.locator(":enabled"))
      .waitFor();
    await page.keyboard.press("Control+s");
    await page
      .locator("#editor-status")
      .filter({ hasText: /^Saved\./ })
      .waitFor({ timeout: 30_000 });
    const draft = await api(`/api/movespecs/${movespecId}/draft`);
    expect(draft.body.yaml_source).to.contain(`${LINE_TEXT} # tuned in the Studio`);

    await page.getByRole("button", { name: "Create version" }).click();
    await page
      .locator("#editor-status")
      .filter({ hasText: /^Version 1 created\.$/ })
      .waitFor();
    await page.getByRole("button", { name: "Release" }).click();
    await page
      .locator("#editor-status")
      .filter({ hasText: /^Version 1 released/ })
      .waitFor({ timeout: 30_000 });
    const released = await api(`/api/movespecs/${movespecId}/released-source`);
    expect(released.body.version_number).to.equal(1);
    expect(released.body.yaml_source).to.equal(draft.body.yaml_source);
    expect(await page.textContent("#spec-meta")).to.contain("released: version 1");

    // The same text again: no duplicate version, and the picker stays on the released one.
    await page.getByRole("button", { name: "Create version" }).click();
    await page
      .locator("#editor-status")
      .filter({ hasText: /^No new version: version 1 already holds this text\.$/ })
      .waitFor();
    expect((await api(`/api/movespecs/${movespecId}/versions`)).body.items).to.have.length(1);
    expect(await page.locator("#versions option:checked").textContent()).to.equal(
      "version 1 (released)",
    );
  });

  studioIt(
    "refuses to overwrite a draft changed elsewhere (412), then loads it or overwrites it",
    async () => {
      const movespecId = await ownMoveSpec("Conflicting squat", { yaml: TUNED, release: true });
      const draftPath = `/api/movespecs/${movespecId}/draft`;
      const putDraft = (yaml_source: string) =>
        api(draftPath, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ yaml_source }),
        });
      const status = page.locator("#editor-status");
      const line = (index: number) => editorLine(index).textContent();
      const saveButton = page.getByRole("button", { name: /Save draft/ });
      // The change elsewhere is a first line: in view whatever the editor's scroll.
      const other = `# edited elsewhere\n${(await api(draftPath)).body.yaml_source}`;
      expect((await putDraft(other)).status).to.equal(200);
      await editorLine(LINE - 1).click();
      await page.keyboard.press("End");
      await page.keyboard.type("!");
      const mine = `${LINE_TEXT} # tuned in the Studio!`;
      expectedErrors.push(/status of 412/);
      await saveButton.click();
      await status.filter({ hasText: /changed elsewhere/ }).waitFor({ timeout: 30_000 });
      expect((await api(draftPath)).body.yaml_source).to.equal(other);
      expect(expectedErrors).to.deep.equal([]);
      // Two ways out, explained, with the focus on the first.
      const conflict = page.getByRole("group", { name: /saved this draft after you opened it/ });
      await conflict.waitFor();
      expect(await page.evaluate("document.activeElement.id")).to.equal("conflict-load");
      await shot("6-save-conflict");

      // Load the latest draft (by keyboard): the other text, nothing to save, and the user's text
      // one undo away.
      await page.keyboard.press("Enter");
      await status
        .filter({ hasText: /^Loaded the latest draft\. Your text is one undo away \(Ctrl\+Z\)\.$/ })
        .waitFor();
      expect(await conflict.isHidden()).to.equal(true);
      expect(await line(0)).to.equal("# edited elsewhere");
      expect(await line(LINE)).to.equal(`${LINE_TEXT} # tuned in the Studio`);
      expect(await saveButton.isDisabled()).to.equal(true);
      await page.keyboard.press("Control+z");
      expect(await line(LINE - 1)).to.equal(mine);
      expect(await line(0)).to.not.equal("# edited elsewhere");
      expect(await saveButton.isEnabled()).to.equal(true);

      // Changed elsewhere again: this time the user's text overwrites it, with the new ETag.
      expect((await putDraft(`# and again\n${other}`)).status).to.equal(200);
      expectedErrors.push(/status of 412/);
      await saveButton.click();
      await conflict.waitFor();
      await page.getByRole("button", { name: "Overwrite with my text" }).click();
      await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 30_000 });
      expect(expectedErrors).to.deep.equal([]);
      expect(await conflict.isHidden()).to.equal(true);
      const overwritten = (await api(draftPath)).body.yaml_source;
      expect(overwritten).to.contain(`${mine}\n`).and.not.contain("# and again");
      expect(overwritten).to.not.contain("# edited elsewhere");
      expect(await saveButton.isDisabled()).to.equal(true);

      // Back to the released text (reopening takes the draft as it is now; put it back first).
      const released = (await api(`/api/movespecs/${movespecId}/released-source`)).body.yaml_source;
      await putDraft(released);
      await openById(movespecId);
      // Opening starts the undo history afresh: undo brings back nothing of the text before it
      // (which Save would then write to this draft).
      const editorText = () => page.locator(".cm-content").innerText();
      const loaded = await editorText();
      await page.locator(".cm-line").first().click();
      await page.keyboard.press("Control+z");
      await page.keyboard.press("Control+z");
      expect(await editorText()).to.equal(loaded);
      expect(await page.getByRole("button", { name: /Save draft/ }).isDisabled()).to.equal(true);
    },
  );

  studioIt(
    "says what to do when the service cannot be reached, and saves once it can",
    async () => {
      const movespecId = await ownMoveSpec("Offline squat", { yaml: TUNED });
      const status = page.locator("#editor-status");
      const unreachable = "cannot reach the service. Check your connection and try again.";
      await editorLine(LINE - 1).click();
      await page.keyboard.press("End");
      // One input event, so one undo step even on a slow machine (typed keys more than 500 ms apart are two).
      await page.keyboard.insertText(" # offline");
      offline = true;
      await page.route("**/api/**", (route) => route.abort("internetdisconnected"));
      try {
        await page.getByRole("button", { name: /Save draft/ }).click();
        // Whether the PUT reached the service before the connection failed the page cannot tell.
        await status.filter({ hasText: /^Not known to be saved: / }).waitFor({ timeout: 30_000 });
        expect(await status.textContent()).to.equal(
          "Not known to be saved: the connection was lost before the service answered. Check your connection and save again (that save finds out whether this one arrived).",
        );
        expect(await status.getAttribute("role")).to.equal("status");
        // A read the SDK retries (with backoff) before it gives up says the same.
        await page.getByRole("button", { name: "Search" }).click();
        await page
          .locator("#catalogue li.error")
          .filter({ hasText: `Search failed: ${unreachable}` })
          .waitFor({ timeout: 30_000 });
      } finally {
        await page.unroute("**/api/**");
        offline = false;
      }
      await page.getByRole("button", { name: /Save draft/ }).click();
      await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 30_000 });
      const draftPath = `/api/movespecs/${movespecId}/draft`;
      expect((await api(draftPath)).body.yaml_source).to.contain(
        `${LINE_TEXT} # tuned in the Studio # offline\n`,
      );
      // Back to the text before, undone in the editor and saved.
      await page.locator(".cm-content").focus();
      await page.keyboard.press("Control+z");
      // The status already says "Saved." (the save before): wait for the service to hold the text.
      await page.keyboard.press("Control+s");
      await eventually(
        async () => !String((await api(draftPath)).body.yaml_source).includes("# offline"),
        30_000,
      ).catch(() => {});
      await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 30_000 });
      expect((await api(draftPath)).body.yaml_source).to.not.contain("# offline");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator("#catalogue li.error").waitFor({ state: "detached" });
    },
  );

  studioIt("finds out whether a save whose answer was lost went through", async () => {
    const movespecId = await ownMoveSpec("Unanswered squat", { yaml: TUNED, release: true });
    const status = page.locator("#editor-status");
    const draftPath = `/api/movespecs/${movespecId}/draft`;
    const draft = async () => (await api(draftPath)).body.yaml_source;
    const saveButton = page.getByRole("button", { name: /Save draft/ });
    const type = async (text: string) => {
      await editorLine(LINE - 1).click();
      await page.keyboard.press("End");
      await page.keyboard.type(text);
    };
    // The last step's "Saved." is still there: a save's own status is waited for on a blank line.
    const save = async () => {
      await status.evaluate((element) => {
        element.textContent = "";
      });
      await saveButton.click();
    };
    const released = (await api(`/api/movespecs/${movespecId}/released-source`)).body.yaml_source;
    // The connection drops with the draft's PUT in flight: after it reached the service (its
    // answer is lost), or before; and, while `down`, every other request is lost too.
    let putReaches = true;
    let down = false;
    offline = true;
    await page.route("**/api/**", async (route) => {
      if (route.request().method() === "PUT") {
        if (putReaches) await route.fetch();
        return route.abort("internetdisconnected");
      }
      return down ? route.abort("internetdisconnected") : route.continue();
    });
    try {
      // The draft read back holds the text: saved, with the draft's new ETag.
      await type(" # answer lost");
      await save();
      await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 30_000 });
      expect(await saveButton.isDisabled()).to.equal(true);
      expect(await draft()).to.contain(" # answer lost\n");

      // The draft read back does not hold it: not saved.
      putReaches = false;
      await type(" # request lost");
      await save();
      await status.filter({ hasText: /^Not saved: / }).waitFor({ timeout: 30_000 });
      expect(await status.textContent()).to.equal(
        "Not saved: the connection was lost before the service had your text. Save again.",
      );
      expect(await draft()).to.not.contain("# request lost");

      // No way to read it back: the page says it does not know.
      putReaches = true;
      down = true;
      await type(" # both lost");
      await save();
      await status.filter({ hasText: /^Not known to be saved: / }).waitFor({ timeout: 30_000 });
      expect(await status.textContent()).to.equal(
        "Not known to be saved: the connection was lost before the service answered. Check your connection and save again (that save finds out whether this one arrived).",
      );
      expect(await status.getAttribute("role")).to.equal("status");
      expect(await draft()).to.contain(" # request lost # both lost\n");
    } finally {
      await page.unroute("**/api/**");
      offline = false;
    }
    // Back, and edited further: the 412 is the lost save's own doing, not a change elsewhere.
    await type(" # back");
    expectedErrors.push(/status of 412/);
    await save();
    await status.filter({ hasText: /^Saved\./ }).waitFor({ timeout: 30_000 });
    expect(expectedErrors).to.deep.equal([]);
    expect(await page.locator("#conflict").isHidden()).to.equal(true);
    expect(await draft()).to.contain(" # answer lost # request lost # both lost # back\n");

    // Back to version 1's text, reopened: nothing left unsaved.
    await send("PUT", draftPath, { yaml_source: released });
    await openById(movespecId);
    expect(await saveButton.isDisabled()).to.equal(true);
  });

  studioIt(
    "runs the bundled UI-PRMD squat recording with one key: 10 repetitions, 10 marks",
    async () => {
      const name = "Counted squat";
      const movespecId = await ownMoveSpec(name, { yaml: TUNED, release: true });
      // The first recording, chosen from the start (no test chooses another; a file is put back).
      expect(await page.getByLabel("Recording").inputValue()).to.equal("m01_s01");
      await runBundledByKey();
      // The plot numbers each counted repetition in its marker lane (plot/signal-plot.ts).
      const marks = await page.locator("#plot .rep-mark").allTextContents();
      expect(marks).to.deep.equal(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
      expect(await page.locator("#reps tbody tr").count()).to.equal(10);
      // The run used the released version 1 (the same text): no new version.
      expect((await api(`/api/movespecs/${movespecId}/versions`)).body.items).to.have.length(1);
      await page.getByLabel(/^Time/).fill("300");
      expect(await page.textContent("#scrub-time")).to.equal("10.00 s");
      // The cursor on the plot follows: at the first frame on the time axis' left end, at 10 s of
      // 22.97 s a little less than half-way along it.
      const axis = await page.locator("#plot .u-over").first().boundingBox();
      const cursorX = async () => (await page.locator("#cursor").boundingBox())?.x ?? -1;
      expect(await page.getAttribute("#cursor", "data-t")).to.equal("10.000");
      expect(await cursorX()).to.be.closeTo(
        (axis?.x ?? 0) + (10 / 22.9667) * (axis?.width ?? 0),
        3,
      );
      await page.getByLabel(/^Time/).fill("0");
      expect(await cursorX()).to.be.closeTo(axis?.x ?? 0, 2);
      await page.getByLabel(/^Time/).fill("300");
      await shot("2-bundled-run");
      bundled = { id: movespecId, name };
    },
  );

  studioIt(
    "explores the run on the plot at 1280x800: legible labels, hover values, drag to zoom, click to move the time",
    async () => {
      await bundledRun();
      await page.setViewportSize({ width: 1280, height: 800 });
      try {
        const plot = page.locator("#plot .signal-plot");
        await plot.scrollIntoViewIfNeeded();
        const box = await plot.boundingBox();
        // The squat's default signals (what its phases and rules compare) within one screen.
        expect(await plot.getAttribute("data-panels")).to.equal("7");
        expect(box?.height).to.be.at.most(800);
        await page.evaluate("document.querySelector('#plot').scrollIntoView()");
        await page.screenshot({ path: join(SHOTS, "7-plot-1280x800.png") });
        // Every label at least 11 px, and no two of one panel (nor two repetition numbers) overlap.
        const boxes = (await page.evaluate(`[...document.querySelectorAll(
        "#plot .plot-labels, #plot .plot-lane")].map((group) => [...group.children].map((label) => {
          const r = label.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
            size: parseFloat(getComputedStyle(label).fontSize), text: label.textContent };
        }))`)) as {
          top: number;
          bottom: number;
          left: number;
          right: number;
          size: number;
          text: string;
        }[][];
        expect(boxes.flat().length).to.be.above(20);
        for (const group of boxes)
          for (const [i, a] of group.entries()) {
            expect(a.size, a.text).to.be.at.least(11);
            for (const b of group.slice(i + 1)) {
              const apart =
                a.bottom <= b.top + 0.5 ||
                b.bottom <= a.top + 0.5 ||
                a.right <= b.left + 0.5 ||
                b.right <= a.left + 0.5;
              expect(apart, `${a.text} / ${b.text}`).to.equal(true);
            }
          }

        const over = page.locator("#plot .plot-panel[data-signal='depth'] .u-over");
        const area = (await over.boundingBox()) as {
          x: number;
          y: number;
          width: number;
          height: number;
        };
        const at = (fraction: number) => area.x + fraction * area.width;
        const y = area.y + area.height / 2;
        const view = async () => ({
          from: Number(await plot.getAttribute("data-from")),
          to: Number(await plot.getAttribute("data-to")),
        });
        const whole = await view();
        const timeAt = (fraction: number, v = whole) => v.from + fraction * (v.to - v.from);

        // Hover: the instant and every shown signal's value there.
        await page.mouse.move(at(0.3), y);
        const readout = page.locator("#plot .plot-readout");
        await readout.filter({ hasText: /^t = / }).waitFor();
        const text = (await readout.textContent()) ?? "";
        const shownT = Number(/^t = (\d+\.\d\d) s/.exec(text)?.[1]);
        expect(shownT).to.be.closeTo(timeAt(0.3), 0.1);
        expect(text)
          .to.match(/ · depth -?\d+\.\d{3} · /)
          .and.match(/ · knees \d+\.\d+/);

        // Drag: every panel zooms to the dragged span; fewer repetitions are in view.
        await page.mouse.move(at(0.25), y);
        await page.mouse.down();
        await page.mouse.move(at(0.4), y, { steps: 5 });
        await page.mouse.up();
        await plot
          .filter({
            has: page.locator(".plot-tools button:enabled", { hasText: "Whole recording" }),
          })
          .waitFor();
        const zoomed = await view();
        expect(zoomed.from).to.be.closeTo(timeAt(0.25), 0.1);
        expect(zoomed.to).to.be.closeTo(timeAt(0.4), 0.1);
        expect(await page.locator("#plot .rep-mark").count()).to.be.within(2, 5);
        const spans = (await page.evaluate(
          `[...document.querySelectorAll("#plot .u-over")].map((o) => { const r = o.getBoundingClientRect(); return Math.round(r.left) + "-" + Math.round(r.right); })`,
        )) as string[];
        expect(new Set(spans).size, `the panels' time axes line up: ${spans}`).to.equal(1);

        // Click: the time cursor moves there, with the slider (the recording has 30 frames a
        // second), its readout and the skeleton drawn at that frame (its label says what it shows).
        const frame = async () => Number(await page.getByLabel(/^Time/).inputValue());
        const before = await frame();
        const skeletonBefore = await page.getAttribute("#skeleton", "aria-label");
        await page.mouse.click(at(0.5), y);
        const wanted = timeAt(0.5, zoomed);
        await page
          .locator("#cursor")
          .filter({ hasNot: page.locator("[hidden]") })
          .waitFor();
        expect(Number(await page.getAttribute("#cursor", "data-t"))).to.be.closeTo(wanted, 0.05);
        expect(Number((await page.textContent("#scrub-time"))?.replace(" s", ""))).to.be.closeTo(
          wanted,
          0.05,
        );
        expect(await frame()).to.not.equal(before);
        expect(await frame()).to.be.closeTo(wanted * 30, 1);
        const skeleton = (await page.getAttribute("#skeleton", "aria-label")) ?? "";
        expect(skeleton).to.not.equal(skeletonBefore);
        const drawn = /^Pose at (\d+\.\d\d) s: (\d+) bones seen$/.exec(skeleton);
        expect(drawn, skeleton).to.not.equal(null);
        expect(Number(drawn?.[1])).to.be.closeTo(wanted, 0.05);
        // UI-PRMD's Kinect skeleton, mapped to BlazePose: every limb and the trunk.
        expect(Number(drawn?.[2])).to.be.at.least(12);
        const cursorBox = await page.locator("#cursor").boundingBox();
        expect(cursorBox?.x).to.be.closeTo(at(0.5), 3);

        await page.getByRole("button", { name: "Whole recording" }).click();
        expect((await view()).from).to.equal(whole.from);
        expect(await page.locator("#plot .rep-mark").count()).to.equal(10);
        // Fewer signals on request, more a click away.
        await page.locator("#plot .plot-picker summary").click();
        await page.locator("#plot .pick-list label", { hasText: /^ hips$/ }).click();
        await plot.filter({ has: page.locator(".plot-panel[data-signal='hips']") }).waitFor();
        expect(await plot.getAttribute("data-panels")).to.equal("8");
        await page.locator("#plot .pick-list label", { hasText: /^ hips$/ }).click();
        await page.locator("#plot .plot-picker summary").click();
      } finally {
        await page.setViewportSize({ width: 1280, height: 1000 });
      }
    },
  );

  studioIt(
    "uploads a plain JSONL recording and runs it, naming the line it could not read",
    async () => {
      await ownMoveSpec("Uploaded squat", { yaml: TUNED, release: true });
      await chooseBundled();
      const dir = join(tmpdir(), `studio-${process.pid}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "my-squats.jsonl");
      const text = gunzipSync(readFileSync(join(RECORDINGS, "m01_s03.jsonl.gz"))).toString("utf8");
      const lines = text.trimEnd().split("\n");
      writeFileSync(file, `${lines.join("\n")}\nnot a frame\n`);
      expect(await page.textContent("#bench-source")).to.equal(
        "Runs the bundled m01_s01 (deep squat).",
      );
      await page.setInputFiles("#upload", file);
      // Which one runs is said: the file, until the bundled one is chosen again.
      expect(await page.textContent("#bench-source")).to.equal("Runs your file my-squats.jsonl.");
      await page.getByRole("button", { name: /^Run/ }).click();
      await page
        .locator("#bench-status")
        .filter({ hasText: /^completed: \d+ of \d+ frames of my-squats/ })
        .waitFor({ timeout: 60_000 });
      expect(await page.textContent("#bench-status")).to.contain(
        `completed: ${lines.length} of ${lines.length} frames`,
      );
      expect(await page.textContent("#count")).to.equal("10");
      expect(await page.textContent("#warnings")).to.contain(`line ${lines.length + 1}: not JSON`);
      expect(await page.textContent("#result-caption")).to.equal(
        "Last run: my-squats.jsonl with version 1 of Uploaded squat.",
      );
      await shot("3-upload-run");
    },
  );

  studioIt(
    "a run refused for the MoveSpec's errors takes the last result off the screen",
    async () => {
      await bundledRun();
      expect(await page.locator("#result").isVisible()).to.equal(true);
      await editorLine(LINE - 1).click();
      await page.keyboard.press("Home");
      await page.keyboard.type("x");
      await page.locator("#issues li.error").first().waitFor();
      await page.getByRole("button", { name: /^Run/ }).click();
      await page
        .locator("#bench-status")
        .filter({ hasText: "Fix the MoveSpec's errors first (listed under Problems)." })
        .waitFor();
      expect(await page.locator("#result").isHidden()).to.equal(true);
      await editorLine(LINE - 1).click();
      await page.keyboard.press("Home");
      await page.keyboard.press("Delete");
      await page.locator("#issues li.ok").waitFor();
      expect(await page.getByRole("button", { name: /Save draft/ }).isDisabled()).to.equal(true);
    },
  );

  studioIt(
    "a run whose frames are all refused is no success; a failed run takes the last result off the screen",
    async () => {
      await ownMoveSpec("Refused squat");
      const dir = join(tmpdir(), `studio-${process.pid}`);
      mkdirSync(dir, { recursive: true });
      const point = [0.5, 0.5, 0, 1];
      const refused = join(dir, "five-points.jsonl");
      writeFileSync(
        refused,
        [0, 1, 2]
          .map((seq) => JSON.stringify({ seq, t: seq / 30, keypoints: Array(5).fill(point) }))
          .join("\n"),
      );
      await page.setInputFiles("#upload", refused);
      await page.getByRole("button", { name: /^Run/ }).click();
      const status = page.locator("#bench-status");
      await status.filter({ hasText: /^completed: 0 of 3 frames/ }).waitFor({ timeout: 60_000 });
      // Said to be no success in words: "see the warnings", where a success ends with its time.
      expect(await status.textContent()).to.match(
        /^completed: 0 of 3 frames of five-points\.jsonl accepted in \d+\.\d s: see the warnings\.$/,
      );
      expect(await page.textContent("#warnings")).to.contain("KEYPOINT_COUNT_MISMATCH");
      // One frame above the 64 KiB message limit: the stream is closed, the run fails.
      const huge = join(dir, "huge.jsonl");
      writeFileSync(
        huge,
        JSON.stringify({ seq: 0, t: 0, keypoints: Array(33).fill(Array(600).fill(0.123456789)) }),
      );
      await page.setInputFiles("#upload", huge);
      await page.getByRole("button", { name: /^Run/ }).click();
      await status.filter({ hasText: /^Run failed/ }).waitFor({ timeout: 60_000 });
      expect(await page.locator("#result").isHidden()).to.equal(true);
    },
  );

  studioIt(
    "shows what a catalogue entry is, and copies a public MoveSpec into the project as a new draft",
    async () => {
      await signedIn();
      // Another project publishes a lunge, released.
      const author = await createProjectWithToken(system);
      const theirs = async (path: string, body?: unknown) => {
        const response = await fetch(`${system.gatewayUrl}${path}`, {
          method: body === undefined ? "POST" : path.endsWith("/draft") ? "PUT" : "POST",
          headers: { authorization: `Bearer ${author.token}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await response.json()) as Record<string, string>;
      };
      const shared = await theirs("/api/movespecs", {
        name: "Shared lunge",
        project_id: author.projectId,
        visibility: "public",
        description: "Forward lunges, counted per leg.",
      });
      const yaml = SQUAT;
      await theirs(`/api/movespecs/${shared.movespec_id}/draft`, { yaml_source: yaml });
      const version = await theirs(`/api/movespecs/${shared.movespec_id}/versions`);
      await theirs(
        `/api/movespecs/${shared.movespec_id}/versions/${version.movespec_version_id}/release`,
      );

      // The catalogue learns of it within a second or two (the authoring relay).
      const entry = page.locator("#catalogue li", { hasText: "Shared lunge" });
      await page.getByLabel("Search", { exact: true }).fill("shared lunge");
      for (let tries = 0; tries < 40 && !(await entry.isVisible()); tries++) {
        await page.getByRole("button", { name: "Search", exact: true }).click();
        await page.waitForTimeout(250);
      }
      expect(await entry.textContent())
        .to.contain("Forward lunges, counted per leg.")
        .and.contain(`project ${author.projectId.slice(0, 8)}`)
        .and.contain("★ 0");
      // The entry names the released version by its number, read from the version itself.
      await entry.locator(".released", { hasText: "v1 released" }).waitFor();

      await leaving(() =>
        entry.getByRole("button", { name: "Copy Shared lunge to my project" }).click(),
      );
      await page
        .locator("#editor-status")
        .filter({ hasText: /^Copied version 1 of Shared lunge into Shared lunge \(copy\)/ })
        .waitFor();
      expect(await page.textContent("#spec-title")).to.equal("Shared lunge (copy)");
      const copyId = (await page.getAttribute("#editor-panel", "data-movespec-id")) ?? "";
      expect(copyId).to.not.equal(shared.movespec_id);
      const copy = await api(`/api/movespecs/${copyId}`);
      expect(copy.body).to.include({
        visibility: "private",
        project_id: system.devCredentials?.project_id,
      });
      expect((await api(`/api/movespecs/${copyId}/draft`)).body.yaml_source).to.equal(yaml);
      // Editable, and listed among the project's own.
      expect(await page.locator(".cm-content").getAttribute("contenteditable")).to.equal("true");
      await page.locator("#mine li", { hasText: "Shared lunge (copy)" }).waitFor();
    },
  );

  studioIt(
    "streams the camera through the pose model to a live session, and shows the events",
    async () => {
      await ownMoveSpec("Arms apart", { yaml: ARMS_APART });

      await page.getByRole("button", { name: "Start camera" }).click();
      // Frames with a pose found by the model reach the service, and its events come back.
      await page
        .locator("#camera-status")
        .filter({ hasText: /Live: \d+ frames sent \(([3-9]|\d\d+) with a pose\)/ })
        .waitFor({ timeout: 90_000 });
      // The service counts the person's movement as it happens: its repetition events come back
      // and the live count goes up, while the camera is still running.
      await page
        .locator("#live-count")
        .filter({ hasText: /^([2-9]|\d\d+)$/ })
        .waitFor({ timeout: 120_000 });
      const counted = Number(await page.textContent("#live-count"));
      expect(await page.locator("#live-events li").count()).to.be.greaterThan(0);
      expect(await page.textContent("#camera-status")).to.match(/on wasm\.$/);
      // The skeleton is drawn over the video for each frame with a pose (counted above), on a
      // canvas of the video's size: some of its bones, while the person is found.
      await page
        .locator('#overlay[data-bones]:not([data-bones="0"])')
        .waitFor({ state: "attached", timeout: 30_000 });
      const sizes = (await page.evaluate(`{
      const overlay = document.querySelector("#overlay");
      const video = document.querySelector("#video");
      [overlay.width + "x" + overlay.height, video.videoWidth + "x" + video.videoHeight];
    }`)) as string[];
      expect(sizes[0], "the skeleton's canvas over the video")
        .to.equal(sizes[1])
        .and.not.equal("0x0");
      await shot("5-camera");
      await page.getByRole("button", { name: "Stop camera" }).click();
      await page
        .locator("#camera-status")
        .filter({ hasText: /^Stopped: completed, \d+ frames/ })
        .waitFor();
      expect(Number(await page.textContent("#live-count"))).to.be.at.least(counted);
    },
  );

  studioIt("keeps saying the camera's stream is reconnecting until it is back", async () => {
    await ownMoveSpec("Arms apart, reconnecting", { yaml: ARMS_APART });
    const status = page.locator("#camera-status");
    // The stream client paces a live session's frames by the limit in the server's `ready`: with
    // a low one, a frame is waiting to go when the connection drops (and goes, into the queue for
    // the next connection, while the client reconnects).
    let down = false;
    const sockets: WebSocketRoute[] = [];
    // A page's WebSocket route cannot be taken off again: it is added once, and passes every
    // socket straight through but while this test holds them.
    if (!webSocketsRouted) {
      await page.routeWebSocket(
        () => true,
        (socket) => (webSockets ? webSockets(socket) : void socket.connectToServer()),
      );
      webSocketsRouted = true;
    }
    webSockets = (socket) => {
      if (down) return socket.close({ code: 1013, reason: "try again later" });
      const server = socket.connectToServer();
      sockets.push(socket);
      server.onMessage((message) => {
        const ready = typeof message === "string" && JSON.parse(message);
        if (ready?.type === "ready") ready.limits = { ...ready.limits, live_max_fps: 1 };
        socket.send(ready?.type === "ready" ? JSON.stringify(ready) : message);
      });
    };
    try {
      // Every text the status line shows, in order (the test's own reads would miss some).
      await page.evaluate(`{
      const element = document.querySelector("#camera-status");
      window.cameraStatuses = [];
      new MutationObserver(() => window.cameraStatuses.push(element.textContent)).observe(element, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    }`);
      const statuses = () => page.evaluate("window.cameraStatuses") as Promise<string[]>;
      await page.getByRole("button", { name: "Start camera" }).click();
      await status.filter({ hasText: /^Live: 2 frames sent/ }).waitFor({ timeout: 90_000 });
      await page.waitForTimeout(400);
      down = true;
      await sockets.at(-1)?.close({ code: 1011, reason: "gone" });
      await status.filter({ hasText: /reconnecting \(attempt 3\)/ }).waitFor({ timeout: 30_000 });
      await page.evaluate('window.cameraStatuses.push("(let back)")');
      down = false;
      await status.filter({ hasText: /^Live: / }).waitFor({ timeout: 30_000 });
      const seen = await statuses();
      const lost = seen.findIndex((text) => text.includes("reconnecting"));
      const back = seen.indexOf("(let back)");
      expect(lost).to.be.above(0);
      expect(
        seen.slice(lost, back).filter((text) => !text.includes("reconnecting")),
        seen.join("\n"),
      ).to.deep.equal([]);
      await page.getByRole("button", { name: "Stop camera" }).click();
      await status.filter({ hasText: /^Stopped: completed/ }).waitFor({ timeout: 30_000 });
    } finally {
      webSockets = undefined;
    }
  });

  studioIt("says nobody is in view when the camera shows nobody", async () => {
    await ownMoveSpec("Arms apart, nobody in view", { yaml: ARMS_APART });
    // The camera is an empty grey picture (a canvas's stream): the pose model finds no person.
    await page.evaluate(`{
      const canvas = document.createElement("canvas");
      canvas.width = 640;
      canvas.height = 480;
      const g = canvas.getContext("2d");
      const paint = () => { g.fillStyle = "#8a8a8a"; g.fillRect(0, 0, 640, 480); };
      paint();
      window.blankCamera = setInterval(paint, 100);
      window.realGetUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = async () => canvas.captureStream(15);
    }`);
    const status = page.locator("#camera-status");
    try {
      await page.getByRole("button", { name: "Start camera" }).click();
      await status
        .filter({ hasText: /^Live: ([5-9]|\d\d+) frames sent/ })
        .waitFor({ timeout: 60_000 });
      expect(await status.textContent()).to.match(
        /^Live: \d+ frames sent \(0 with a pose: nobody in view\)/,
      );
      expect(await page.getAttribute("#overlay", "data-bones"), "no skeleton drawn").to.equal("0");
      await page.getByRole("button", { name: "Stop camera" }).click();
      await status.filter({ hasText: /^Stopped: / }).waitFor({ timeout: 30_000 });
    } finally {
      await page.evaluate(`clearInterval(window.blankCamera);
        navigator.mediaDevices.getUserMedia = window.realGetUserMedia;`);
    }
  });

  studioIt(
    "fits a narrow screen, with no console error, no CSP violation and nothing fetched elsewhere",
    async () => {
      // With a MoveSpec open and a run's result shown, its plot included.
      await bundledRun();
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        // Measured two frames on: the plot fits itself to a new width from a ResizeObserver, which
        // runs after the frame's layout.
        const overflow = await page.evaluate(`new Promise((resolve) => requestAnimationFrame(() =>
        requestAnimationFrame(() => resolve(document.documentElement.scrollWidth - innerWidth))))`);
        expect(overflow).to.be.at.most(0);
        await shot("4-narrow");
      } finally {
        await page.setViewportSize({ width: 1280, height: 1000 });
      }
      // (No console error, no CSP violation, nothing fetched elsewhere: checked after every test.)
    },
  );
});
