/**
 * `movespec extract`'s engine: a video file to pose frames by the camera kit's own page code
 * (sdk/src/camera, the code the Studio and any web app run), in headless Chromium driven by
 * playwright-core. The browser decodes the video and runs the pose model; the page, its bundle
 * and the model's files are answered from this process (request interception: no server, no
 * port, nothing from the network).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PoseFrame } from "@movement-detection/sdk";
import { poseAssets } from "@movement-detection/sdk/pose-assets";
import type { PoseModelName } from "@movement-detection/sdk/pose-models";
import type { Browser, Route } from "playwright-core";

/** What the page learnt of the video (page/extract-page.ts answers it). */
export interface ExtractedVideo {
  readonly width: number;
  readonly height: number;
  readonly duration: number;
  readonly backend: string;
  readonly model: string;
}

export interface VideoProgress {
  readonly frames: number;
  readonly framesWithPose: number;
  readonly mediaTime: number;
  readonly duration: number;
}

export interface ExtractOptions {
  /** Each batch of frames, in order, as the page reads them. */
  readonly onFrames: (frames: PoseFrame[]) => void | Promise<void>;
  readonly onProgress?: (progress: VideoProgress) => void;
  /** Closes the browser: extractVideo rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** The pose model (default: the camera kit's DEFAULT_POSE_MODEL). */
  readonly model?: PoseModelName;
  /** Default: CHROMIUM_PATH, else /usr/bin/chromium (Debian's chromium package). */
  readonly chromiumPath?: string;
}

const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "page");
/** The page's origin: answered by route(), never looked up. */
const ORIGIN = "http://movespec-extract.localhost";
const PAGE_HTML = `<!doctype html><meta charset="utf-8"><title>movespec extract</title>
<input type="file" id="file" accept="video/*"><video id="video" muted playsinline></video>
<script type="module" src="app.js"></script>`;

let bundle: Promise<string> | undefined;

/** The page's script, built once per process with esbuild (a development dependency). */
export function extractPageBundle(): Promise<string> {
  bundle ??= (async () => {
    const name = "esbuild";
    const esbuild = (await import(name)) as typeof import("esbuild");
    const result = await esbuild.build({
      entryPoints: [join(PAGE_DIR, "extract-page.ts")],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles[0].text;
  })();
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}

/** Answers the page's requests from memory and the npm packages' files; 404 for anything else. */
async function servePage(route: Route): Promise<void> {
  const path = new URL(route.request().url()).pathname.slice(1);
  if (path === "" || path === "index.html")
    return route.fulfill({ contentType: "text/html; charset=utf-8", body: PAGE_HTML });
  if (path === "app.js")
    return route.fulfill({ contentType: "text/javascript", body: await extractPageBundle() });
  const asset = poseAssets()[path];
  if (asset) return route.fulfill({ contentType: asset.type, body: readFileSync(asset.path) });
  return route.fulfill({ status: 404, body: "not found" });
}

/** Flags for a headless Chromium that reaches nothing outside (the machine's network is closed). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  // A page in the background must not be slowed down: it is the only page.
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
];

export async function launchBrowser(chromiumPath?: string): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const executablePath = chromiumPath ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS }).catch((error: Error) => {
    throw new Error(
      `cannot start Chromium at ${executablePath} (install Debian's chromium package, or set CHROMIUM_PATH): ${error.message.split("\n")[0]}`,
    );
  });
}

/** Reads every frame of `file`; resolves with what the page learnt of the video. */
export async function extractVideo(file: string, options: ExtractOptions): Promise<ExtractedVideo> {
  options.signal?.throwIfAborted();
  const browser = await launchBrowser(options.chromiumPath);
  const abort = () => void browser.close();
  options.signal?.addEventListener("abort", abort);
  try {
    const page = await browser.newPage();
    if (process.env.EXTRACT_DEBUG) page.on("console", (m) => console.error(m.text()));
    await page.route(`${ORIGIN}/**`, servePage);
    // Calls from the page are served one at a time and in order: frames are written in order.
    await page.exposeFunction("movespecFrames", (frames: PoseFrame[]) => options.onFrames(frames));
    await page.exposeFunction("movespecProgress", (progress: VideoProgress) =>
      options.onProgress?.(progress),
    );
    await page.goto(options.model ? `${ORIGIN}/?model=${options.model}` : `${ORIGIN}/`);
    await page.setInputFiles("#file", file);
    // A string: the page's own function (page/extract-page.ts), not one compiled here.
    return (await page.evaluate("window.extractVideo()")) as ExtractedVideo;
  } catch (error) {
    options.signal?.throwIfAborted();
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await browser.close();
  }
}
