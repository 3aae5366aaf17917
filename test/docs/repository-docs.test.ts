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

  it("the README is a front door: under 12,000 bytes, no table cell over 300 characters", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(Buffer.byteLength(readme)).to.be.below(12_000);
    const longCells = readme
      .split("\n")
      .filter((line) => line.startsWith("|"))
      .flatMap((line) => line.split("|"))
      .filter((cell) => cell.length > 300);
    expect(longCells).to.deep.equal([]);
  });

  it("the README's MoveSpec command runs on the bundled recording and counts ten squats", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const command = readmeCommands(readme).find((c) => c.startsWith("npm run -s movespec -- run"));
    expect(command, "the README shows npm run -s movespec -- run ...").to.be.a("string");
    const args = (command as string).replace("npm run -s movespec -- ", "").split(/\s+/);
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

  it("shows the MoveSpec tool as npm run -s movespec: without -s npm prints its banner on stdout", async () => {
    // `npm run movespec -- run ... --json > out.jsonl` would begin the file with npm's two
    // banner lines. Every command shown (README, docs, MoveSpec comments, --help) says -s.
    const { stdout } = await run("git", ["ls-files", "*.md", "*.yaml", "movespec/cli/*.ts"], {
      cwd: ROOT,
    });
    const noisy: string[] = [];
    for (const file of stdout.split("\n").filter(Boolean)) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/npm run movespec\b/.test(line)) noisy.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(noisy).to.deep.equal([]);
  });

  it("promises the Node.js versions every installed package supports, and the README says so", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    // The lowest version of each range package.json's engines accepts.
    const promised = minimums(pkg.engines.node);
    expect(promised.length).to.be.greaterThan(0);
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages as Record<string, LockEntry>)) {
      const range = entry.engines?.node;
      if (!path || !range) continue;
      for (const version of promised)
        if (!satisfies(version, range))
          refusing.push(`${path}@${entry.version} needs node ${range}, not ${version.join(".")}`);
    }
    expect(refusing).to.deep.equal([]);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).to.include(`Needs Node.js ${promised[0].slice(0, 2).join(".")} or newer`);
  });
});

interface LockEntry {
  version?: string;
  engines?: { node?: string };
}

type Version = [number, number, number];

function parse(text: string): Version {
  const [major, minor = 0, patch = 0] = text.split(".").map(Number);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The lowest version of each `||` alternative of a range made of `^x.y.z` or `>=x.y.z`. */
function minimums(range: string): Version[] {
  return range.split("||").map((part) => {
    const match = part.trim().match(/^(?:\^|>=)(\d+(?:\.\d+){0,2})$/);
    if (!match) throw new Error(`package.json engines: cannot read '${part.trim()}'`);
    return parse(match[1]);
  });
}

/**
 * Whether `version` satisfies an npm engines range: alternatives (`||`) of comparators
 * (`>=x`, `>x`, `<x`, `<=x`, `^x`, `~x`, `x`, `x.y.z`, `*`) that must all hold. Anything else
 * throws, so that a range this cannot read fails the test instead of passing it.
 */
function satisfies(version: Version, range: string): boolean {
  // `>= 10.16.0` is `>=10.16.0`.
  return range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, "$1")
    .split("||")
    .some((alternative) =>
      alternative
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .every((comparator) => {
          if (comparator === "*" || comparator === "x") return true;
          const match = comparator.match(
            /^(>=|<=|>|<|\^|~|=)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/,
          );
          if (!match) throw new Error(`cannot read the engines range '${range}'`);
          const [, op = "", major, minor, patch] = match;
          const bound = parse(
            [major, minor ?? "0", patch ?? "0"]
              .map((p) => (p === "x" || p === "*" ? "0" : p))
              .join("."),
          );
          const c = compare(version, bound);
          if (op === ">=") return c >= 0;
          if (op === ">") return c > 0;
          if (op === "<=") return c <= 0;
          if (op === "<") return c < 0;
          if (op === "^") return version[0] === bound[0] && c >= 0;
          if (op === "~") return version[0] === bound[0] && version[1] === bound[1] && c >= 0;
          // A bare `20`, `20.x` or `20.1` is every version with that prefix.
          const any = (part?: string) => part === undefined || part === "x" || part === "*";
          if (any(minor)) return version[0] === bound[0];
          if (any(patch)) return version[0] === bound[0] && version[1] === bound[1];
          return c === 0;
        }),
    );
}
