import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type Router from "@koa/router";
import { GatewayReason } from "@movement-detection/shared/errors";
import type { Context } from "koa";
import { ApiError } from "../errors/api-error.js";
import { assertRoutesWithin, STUDIO_PATHS } from "../public-paths.js";
import { createRouter } from "../routes/router.js";
import type { GatewayState } from "../state.js";
import { checkStudioBuildable, lazyStudioBundle } from "./bundle.js";
import { studioHtml } from "./page.js";
import { poseModelFiles } from "./pose-model.js";
import { RECORDINGS_DIR, readStudioSamples } from "./samples.js";

/**
 * The Studio's Content-Security-Policy: everything from the gateway itself, no inline script, no
 * eval. The editor (CodeMirror) mounts its styles in <style> elements: they carry the response's
 * nonce, which the page reads from a meta tag (a script can only come from the gateway, so only
 * the Studio's own code can use it). `connect-src 'self'` covers the API and the websocket.
 * `'wasm-unsafe-eval'` lets the page compile WebAssembly (the pose model's backend without a
 * GPU; the binaries are fetched from the gateway like everything else) and nothing more: string
 * eval stays blocked.
 */
export function studioCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    // A video file opened in the page plays from a blob: URL (the file never leaves the page).
    "media-src blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * MoveSpec Studio (docs/studio.md): a page, its bundle (built from gateway/studio/app on the first
 * request), the example MoveSpecs and the bundled recordings. Only allow-listed files: no part of
 * a URL reaches the file system.
 */
export function studioRoutes(): Router<GatewayState> {
  checkStudioBuildable();
  const bundle = lazyStudioBundle();
  const samples = readStudioSamples();
  const samplesJson = JSON.stringify(samples);
  const recordings = new Set(samples.recordings.map((r) => r.id));
  const router = createRouter();

  const send = (
    ctx: Context,
    type: string,
    body: string | Buffer,
    cache = "no-cache",
    nonce = randomBytes(16).toString("base64"),
  ) => {
    ctx.set("Content-Security-Policy", studioCsp(nonce));
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Cache-Control", cache);
    ctx.type = type;
    ctx.body = body;
  };

  router.get("/studio", (ctx) => {
    const nonce = randomBytes(16).toString("base64");
    send(ctx, "text/html; charset=utf-8", studioHtml(nonce), "no-store", nonce);
  });
  router.get("/studio/app.js", async (ctx) =>
    send(ctx, "text/javascript; charset=utf-8", (await bundle()).js),
  );
  router.get("/studio/app.css", async (ctx) =>
    send(ctx, "text/css; charset=utf-8", (await bundle()).css),
  );
  router.get("/studio/samples.json", (ctx) => send(ctx, "application/json", samplesJson));
  // The live camera's pose model: the Human library and MoveNet Lightning's two files, loaded by
  // the page only when the camera is started.
  for (const [path, file] of Object.entries(poseModelFiles())) {
    let content: Buffer | undefined;
    router.get(path, (ctx) => {
      content ??= readFileSync(file.path);
      send(ctx, file.type, content, "public, max-age=86400");
    });
  }
  router.get("/studio/recordings/:file", (ctx) => {
    const id = ctx.params.file.replace(/\.jsonl\.gz$/, "");
    if (!ctx.params.file.endsWith(".jsonl.gz") || !recordings.has(id))
      throw new ApiError("not_found", GatewayReason.routeNotFound, `no recording ${ctx.path}`);
    send(
      ctx,
      "application/gzip",
      readFileSync(join(RECORDINGS_DIR, `${id}.jsonl.gz`)),
      "public, max-age=3600",
    );
  });
  assertRoutesWithin(router, STUDIO_PATHS);
  return router;
}
