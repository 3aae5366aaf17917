/**
 * The gateway serves its API description: /openapi.json and /asyncapi.json are the generated
 * documents, and /docs is a reference page rendered by Swagger UI from the gateway's own assets,
 * checked in a real browser (Debian's Chromium through playwright-core) with the network beyond
 * the gateway cut off: it renders every operation, with no CSP violation and no request elsewhere.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { asyncApiDocument } from "../../gateway/api-docs/asyncapi.js";
import { openApiDocument } from "../../gateway/api-docs/openapi.js";
import { DOCS_CSP } from "../../gateway/api-docs/routes.js";
import { launchChromium } from "../support/chromium.js";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

describe("the gateway serves /openapi.json, /asyncapi.json and /docs", function () {
  this.timeout(120_000);
  let system: TestSystem;

  before(async () => {
    system = await startTestSystem();
  });
  after(async () => system?.stop());

  it("answers the generated documents, anonymously, ignoring a stale token", async () => {
    for (const [path, document] of [
      ["/openapi.json", openApiDocument()],
      ["/asyncapi.json", asyncApiDocument()],
    ] as const) {
      const response = await fetch(`${system.gatewayUrl}${path}`, {
        headers: { authorization: "Bearer not-a-token" },
      });
      expect(response.status, path).to.equal(200);
      expect(response.headers.get("content-type")).to.match(/^application\/json/);
      expect(await response.json()).to.deep.equal(document);
    }
  });

  it("serves the page and its assets under a strict Content-Security-Policy, nothing else", async () => {
    const page = await fetch(`${system.gatewayUrl}/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get("content-security-policy")).to.equal(DOCS_CSP);
    expect(DOCS_CSP).to.contain("script-src 'self'").and.not.contain("unsafe");
    const html = await page.text();
    expect(html).to.not.match(/https?:\/\//);
    for (const asset of [
      "/docs/assets/swagger-ui-bundle.js",
      "/docs/assets/swagger-ui.css",
      "/docs/page.js",
    ]) {
      expect((await fetch(`${system.gatewayUrl}${asset}`)).status, asset).to.equal(200);
    }
    // Only the allow-listed files: no path from the URL reaches the file system.
    for (const probe of [
      "/docs/assets/package.json",
      "/docs/assets/..%2f..%2fpackage.json",
      "/docs/nope",
    ]) {
      expect((await fetch(`${system.gatewayUrl}${probe}`)).status, probe).to.equal(404);
    }
  });

  it("renders every operation in Chromium, offline, with no CSP violation", async function () {
    skipUnderFakedClock(this, "Chromium");
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const context = await browser.newContext();
      const gateway = new URL(system.gatewayUrl).origin;
      const foreign: string[] = [];
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(gateway) || url.startsWith("data:")) return route.continue();
        foreign.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${system.gatewayUrl}/docs`);
      await page.waitForSelector(".opblock", { timeout: 30_000 });
      const operations = await page.locator(".opblock-summary-path").allTextContents();
      const paths = Object.keys((openApiDocument() as { paths: object }).paths);
      for (const path of paths) {
        expect(
          operations.map((text) => text.replace(/\u200b/g, "")),
          path,
        ).to.include(path);
      }
      const documented = Object.values(
        (openApiDocument() as { paths: Record<string, object> }).paths,
      ).flatMap((item) => Object.keys(item).filter((key) => HTTP_METHODS.has(key)));
      expect(await page.locator(".opblock").count()).to.equal(documented.length);
      expect(await page.textContent("body")).to.contain("Realtime stream");
      expect(problems, problems.join("\n")).to.deep.equal([]);
      expect(foreign).to.deep.equal([]);
    } finally {
      await browser?.close();
    }
  });
});
