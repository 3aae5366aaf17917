/**
 * The repository documents itself (a clone has nothing beside it): every link in every Markdown
 * file resolves to a file of the repository, no document points outside it, every file a README
 * command names exists, and the README's tool commands run from a clone as written.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");

async function markdownFiles(): Promise<string[]> {
  const { stdout } = await run(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
    { cwd: ROOT },
  );
  return stdout.split("\n").filter((file) => file !== "" && existsSync(join(ROOT, file)));
}

/** The text outside fenced code blocks (code may quote imports that are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** Shell commands of the README: fenced sh blocks and inline `npm run ...` / `node ...`. */
function readmeCommands(text: string): string[] {
  const commands: string[] = [];
  for (const [, block] of text.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    commands.push(
      ...block
        .replace(/\\\n\s*/g, " ")
        .split("\n")
        .map((l) => l.replace(/#.*$/, "").trim())
        .filter(Boolean),
    );
  }
  for (const [, inline] of text.matchAll(/`((?:npm run|node --import tsx|npx) [^`]+)`/g))
    commands.push(inline);
  return commands;
}

describe("the repository documents itself", function () {
  this.timeout(120_000);

  it("every Markdown link resolves inside the repository, and nothing points at ../shared", async () => {
    const broken: string[] = [];
    const files = await markdownFiles();
    expect(files).to.include.members(["README.md", "docs/api.md", "sdk/README.md"]);
    for (const file of files) {
      const text = prose(readFileSync(join(ROOT, file), "utf8"));
      // The user's documents never send a reader outside the clone. (A benchmark may name data
      // that stays outside the repository on purpose: bench/accuracy's optional recordings.)
      const forUsers = file === "README.md" || /^(docs|sdk|examples)\//.test(file);
      if (forUsers && /\.\.\/shared\/|shared\/(spec|design|posedata)\//.test(text)) {
        broken.push(`${file}: mentions ../shared`);
      }
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const path = resolve(dirname(join(ROOT, file)), decodeURIComponent(target.split("#")[0]));
        if (relative(ROOT, path).startsWith(".."))
          broken.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(path)) broken.push(`${file}: ${target} does not exist`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("every file a README command names is in the repository", () => {
    const missing: string[] = [];
    for (const file of ["README.md", "examples/stream-client/README.md", "movespec/README.md"]) {
      for (const command of readmeCommands(readFileSync(join(ROOT, file), "utf8"))) {
        for (const [token] of command.matchAll(
          /(?:^|\s)((?:examples|test|services|gateway|deploy|movespec|sdk|docs|bench)\/[\w./-]+)/g,
        )) {
          const path = token.trim();
          if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${command} -> ${path}`);
        }
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it("the README's MoveSpec command runs on the bundled recording and counts ten squats", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const command = readmeCommands(readme).find((c) => c.startsWith("npm run movespec -- run"));
    expect(command, "the README shows npm run movespec -- run ...").to.be.a("string");
    const args = (command as string).replace("npm run movespec -- ", "").split(/\s+/);
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "movespec/cli/main.ts", ...args],
      { cwd: ROOT },
    );
    expect(stdout).to.match(/count: 10\b/);
  });

  it("the README's admin command shows its help", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readmeCommands(readme)).to.include("npm run admin -- --help");
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "services/admin/main.ts", "--help"],
      { cwd: ROOT },
    );
    expect(stdout).to.contain("AUTHORING_SERVICE_URL");
  });
});
