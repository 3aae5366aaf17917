import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Router from "@koa/router";
import { assertRoutesWithin, DOCS_PATHS } from "../public-paths.js";
import { createRouter } from "../routes/router.js";
import type { GatewayState } from "../state.js";
import { asyncApiDocument } from "./asyncapi.js";
import { openApiDocument } from "./openapi.js";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "./page.js";

/**
 * The API described where users look: /openapi.json, /asyncapi.json, and a readable reference at
 * /docs rendered by Swagger UI from the gateway's own copy of its assets (the swagger-ui-dist
 * package): no CDN, so it works offline. The page runs under a strict Content-Security-Policy:
 * scripts, styles and fetches from the gateway only, nothing inline, no eval.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SWAGGER_UI_DIR = dirname(
  createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"),
);

/** What the page loads, by path: [content or file, media type]. An allow-list, never a URL path. */
const ASSETS: Readonly<Record<string, readonly [string | { file: string }, string]>> = {
  "/docs": [PAGE_HTML, "text/html; charset=utf-8"],
  "/docs/page.js": [PAGE_JS, "text/javascript; charset=utf-8"],
  "/docs/page.css": [PAGE_CSS, "text/css; charset=utf-8"],
  "/docs/assets/swagger-ui-bundle.js": [
    { file: join(SWAGGER_UI_DIR, "swagger-ui-bundle.js") },
    "text/javascript; charset=utf-8",
  ],
  "/docs/assets/swagger-ui.css": [
    { file: join(SWAGGER_UI_DIR, "swagger-ui.css") },
    "text/css; charset=utf-8",
  ],
  "/docs/assets/favicon-32x32.png": [
    { file: join(SWAGGER_UI_DIR, "favicon-32x32.png") },
    "image/png",
  ],
};

export function apiDocsRoutes(): Router<GatewayState> {
  const router = createRouter();
  const openapi = JSON.stringify(openApiDocument());
  const asyncapi = JSON.stringify(asyncApiDocument());
  const files = new Map<string, Buffer>();
  const file = (path: string) => {
    let content = files.get(path);
    if (!content) {
      const source = ASSETS[path][0];
      content = typeof source === "string" ? Buffer.from(source) : readFileSync(source.file);
      files.set(path, content);
    }
    return content;
  };

  router.get("/openapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.set("Cache-Control", "no-cache");
    ctx.body = openapi;
  });
  router.get("/asyncapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.set("Cache-Control", "no-cache");
    ctx.body = asyncapi;
  });
  for (const path of Object.keys(ASSETS)) {
    router.get(path, (ctx) => {
      ctx.set("Content-Security-Policy", DOCS_CSP);
      ctx.set("X-Content-Type-Options", "nosniff");
      ctx.set("Referrer-Policy", "no-referrer");
      ctx.set("Cache-Control", path === "/docs" ? "no-cache" : "public, max-age=3600");
      ctx.type = ASSETS[path][1];
      ctx.body = file(path);
    });
  }
  assertRoutesWithin(router, DOCS_PATHS);
  return router;
}
