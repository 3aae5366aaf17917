import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const BUF = join(ROOT, "node_modules/.bin/buf");

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("proto/", function () {
  this.timeout(60_000);

  it("passes buf lint", async () => {
    const { stdout } = await run(BUF, ["lint", "proto"], { cwd: ROOT });
    expect(stdout).to.equal("");
  });

  it("matches the committed generated code (regenerate with npm run generate)", async () => {
    const out = await mkdtemp(join(tmpdir(), "mds-proto-"));
    try {
      const template = JSON.stringify({
        version: "v2",
        plugins: [{ local: "protoc-gen-es", out, opt: ["target=ts", "import_extension=js"] }],
      });
      await run(BUF, ["generate", "proto", "--template", template], {
        cwd: ROOT,
        env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
      });
      const committed = await listFiles(join(ROOT, "proto/gen"));
      expect(await listFiles(out)).to.deep.equal(committed);
      for (const file of committed) {
        const fresh = await readFile(join(out, file), "utf8");
        expect(await readFile(join(ROOT, "proto/gen", file), "utf8"), file).to.equal(fresh);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
