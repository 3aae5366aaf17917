/**
 * The SDK stands alone: it compiles for browsers (DOM library, no Node types), imports nothing
 * from the rest of the repository, and its generated types are those of the current documents.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { sdkApiSource } from "@movement-detection/sdk/generate";
import { expect } from "chai";
import { asyncApiDocument } from "../../gateway/api-docs/asyncapi.js";
import { openApiDocument } from "../../gateway/api-docs/openapi.js";
import { SDK_API_FILE } from "../../gateway/api-docs/write-documents.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");

describe("sdk/ stands alone", function () {
  this.timeout(60_000);

  it("compiles for browsers: DOM library, no Node types", async () => {
    const tsc = join(ROOT, "node_modules/.bin/tsc");
    const result = await run(tsc, ["-p", join(ROOT, "sdk/tsconfig.json")], { cwd: ROOT }).catch(
      (e) => e,
    );
    expect(`${result.stdout ?? ""}${result.stderr ?? ""}`).to.equal("");
  });

  it("imports nothing outside sdk/ and no Node module", () => {
    const dir = join(ROOT, "sdk/src");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    expect(files.length).to.be.greaterThan(5);
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const [, specifier] of text.matchAll(/from "([^"]+)"/g)) {
        expect(specifier, `${file} imports ${specifier}`).to.match(/^\.\.?\//);
        expect(
          join(dir, file, "..", specifier).startsWith(dir),
          `${file} imports ${specifier}`,
        ).to.equal(true);
      }
    }
  });

  it("has the generated types of the current API documents (regenerate with npm run generate)", () => {
    expect(readFileSync(SDK_API_FILE, "utf8")).to.equal(
      sdkApiSource(openApiDocument(), asyncApiDocument()),
    );
  });
});
