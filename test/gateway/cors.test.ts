/**
 * CORS_ALLOWED_ORIGINS: which web pages' scripts may read the API's answers. The real middleware
 * in a Koa app over real HTTP, configured as the gateway reads its environment.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Router from "@koa/router";
import { ConfigError } from "@movement-detection/shared/config";
import { expect } from "chai";
import Koa from "koa";
import { loadGatewayConfig } from "../../gateway/config.js";
import { corsPolicy } from "../../gateway/middleware/cors.js";
import { routeFallback } from "../../gateway/middleware/route-fallback.js";
import type { GatewayState } from "../../gateway/state.js";

const origins = (value?: string) =>
  loadGatewayConfig(value === undefined ? {} : { CORS_ALLOWED_ORIGINS: value }).corsAllowedOrigins;

/** A gateway-like app (CORS, then the route fallback, then a route) on a free port. */
async function serve(
  corsAllowedOrigins: readonly string[],
): Promise<{ base: string; server: Server }> {
  const router = new Router<GatewayState>();
  router.get("/api/thing", (ctx) => {
    ctx.body = { ok: true };
  });
  const app = new Koa<GatewayState>();
  app.use(corsPolicy(corsAllowedOrigins)).use(routeFallback(router)).use(router.routes());
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("CORS: CORS_ALLOWED_ORIGINS", () => {
  describe("configuration", () => {
    it("defaults to * (every origin), and takes * alone", () => {
      expect(origins()).to.deep.equal(["*"]);
      expect(origins(" * ")).to.deep.equal(["*"]);
    });

    it("writes each origin as a browser sends it: lower case, no default port; duplicates once", () => {
      expect(
        origins(
          "HTTPS://App.Example:443, http://localhost:5173, http://[::1]:3000, https://app.example",
        ),
      ).to.deep.equal(["https://app.example", "http://localhost:5173", "http://[::1]:3000"]);
      expect(origins("http://127.0.0.1:80")).to.deep.equal(["http://127.0.0.1"]);
    });

    for (const [entry, problem] of [
      ["*,https://app.example", /either \* alone or a list/],
      ["https://app.example/", /no path, not even a trailing slash/],
      ["https://app.example/studio", /no path/],
      ["https://app.example?x=1", /no query/],
      ["https://app.example#top", /not an origin/],
      ["https://user@app.example", /no user/],
      ["https://app.example\\evil", /not an origin/],
      ["https://app%2eexample", /not an origin/],
      ["https://app.example:65536", /not an origin/],
      ["https://*.app.example", /a pattern/],
      ["null", /sandboxed frames and file: pages/],
      ["app.example", /not an http:\/\/ or https:\/\/ origin/],
      ["ftp://app.example", /not an http:\/\/ or https:\/\/ origin/],
      ["chrome-extension://abcdef", /not an http:\/\/ or https:\/\/ origin/],
    ] as const) {
      it(`refuses ${JSON.stringify(entry)} at start, naming the variable`, () => {
        expect(() => origins(`http://localhost:5173,${entry}`)).to.throw(
          ConfigError,
          /CORS_ALLOWED_ORIGINS/,
        );
        expect(() => origins(entry)).to.throw(problem);
      });
    }
  });

  const get = (base: string, origin?: string) =>
    fetch(`${base}/api/thing`, { headers: origin === undefined ? {} : { origin } });
  const preflight = (base: string, origin: string) =>
    fetch(`${base}/api/thing`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });

  describe("the default: any origin's pages may read answers (bearer tokens only, no cookies)", () => {
    let served: { base: string; server: Server };
    before(async () => {
      served = await serve(origins());
    });
    after(() => new Promise((resolve) => served.server.close(resolve)));

    it("names the caller's origin, never allows credentials, and varies by Origin", async () => {
      for (const origin of ["https://anything.example", "http://localhost:1", "null"]) {
        const response = await get(served.base, origin);
        expect(response.status).to.equal(200);
        expect(response.headers.get("access-control-allow-origin"), origin).to.equal(origin);
        expect(response.headers.get("access-control-allow-credentials")).to.equal(null);
        expect(response.headers.get("vary")).to.match(/\borigin\b/i);
      }
      const preflighted = await preflight(served.base, "https://anything.example");
      expect(preflighted.status).to.equal(204);
      expect(preflighted.headers.get("access-control-allow-origin")).to.equal(
        "https://anything.example",
      );
      expect(preflighted.headers.get("access-control-allow-headers")).to.contain("Authorization");
    });

    it("adds nothing for a request without Origin (not a browser's cross-origin call)", async () => {
      const response = await get(served.base);
      expect(response.headers.get("access-control-allow-origin")).to.equal(null);
      expect(response.headers.get("vary")).to.match(/\borigin\b/i);
    });
  });

  describe("a list: only its origins' pages", () => {
    let served: { base: string; server: Server };
    before(async () => {
      served = await serve(origins("https://app.example,http://localhost:5173"));
    });
    after(() => new Promise((resolve) => served.server.close(resolve)));

    it("names a listed origin, on requests and preflights", async () => {
      for (const origin of ["https://app.example", "http://localhost:5173"]) {
        const response = await get(served.base, origin);
        expect(response.headers.get("access-control-allow-origin"), origin).to.equal(origin);
        expect(response.headers.get("access-control-expose-headers")).to.contain("X-Request-Id");
        const preflighted = await preflight(served.base, origin);
        expect(preflighted.status).to.equal(204);
        expect(preflighted.headers.get("access-control-allow-origin"), origin).to.equal(origin);
        expect(preflighted.headers.get("access-control-allow-methods")).to.contain("POST");
        expect(preflighted.headers.get("access-control-max-age")).to.equal("600");
      }
    });

    for (const origin of [
      "https://evil.example",
      "https://app.example.evil.example",
      "https://evilapp.example",
      "https://app.example:8443",
      "http://app.example",
      "HTTPS://APP.EXAMPLE",
      "http://localhost:5174",
      "null",
    ]) {
      it(`${origin}: no Access-Control-Allow-Origin (the browser keeps the answer from the page)`, async () => {
        const response = await get(served.base, origin);
        // Not access control: the answer is the same, only a browser withholds it.
        expect(response.status).to.equal(200);
        expect(response.headers.get("access-control-allow-origin")).to.equal(null);
        expect(response.headers.get("vary")).to.match(/\borigin\b/i);
        const preflighted = await preflight(served.base, origin);
        expect(preflighted.headers.get("access-control-allow-origin")).to.equal(null);
        expect(preflighted.headers.get("access-control-allow-methods")).to.equal(null);
      });
    }
  });
});
