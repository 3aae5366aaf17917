import { copyFile, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/**
 * What `docker build -f deploy/Dockerfile .` sends to its build stage: the files the stage's COPY
 * instructions name, filtered by .dockerignore. Copying exactly that into a directory lets CI run
 * the stage's steps outside Docker, and catches a file the image needs but never receives.
 */
export async function copyBuildContext(repoRoot: string, destination: string): Promise<string[]> {
  const dockerfile = await readFile(join(repoRoot, "deploy/Dockerfile"), "utf8");
  const ignored = ignoreMatcher(await readFile(join(repoRoot, ".dockerignore"), "utf8"));
  const copied: string[] = [];
  for (const source of buildStageSources(dockerfile)) {
    const files = await filesUnder(repoRoot, source);
    const kept = files.filter((file) => !ignored(file));
    if (kept.length === 0) throw new Error(`COPY ${source}: nothing left after .dockerignore`);
    for (const file of kept) {
      await mkdir(dirname(join(destination, file)), { recursive: true });
      await copyFile(join(repoRoot, file), join(destination, file));
      copied.push(file);
    }
  }
  return copied;
}

/** Sources of the build stage's `COPY <src>... <dest>` lines (not `COPY --from`), each copied to itself. */
function buildStageSources(dockerfile: string): string[] {
  const stages = dockerfile.split(/^FROM /m);
  const build = stages.find((stage) => /^\S+ AS build\b/i.test(stage));
  if (!build) throw new Error("deploy/Dockerfile has no `AS build` stage");
  const sources: string[] = [];
  for (const match of build.matchAll(/^COPY (?!--from)(.+)$/gm)) {
    const words = match[1].split(/\s+/).filter((word) => !word.startsWith("--"));
    const destination = words.pop() as string;
    for (const source of words) {
      const same =
        destination === "./" || destination.replace(/\/$/, "") === source.replace(/\/$/, "");
      if (!same)
        throw new Error(
          `COPY ${source} ${destination}: expected each source copied to its own path`,
        );
      sources.push(source.replace(/\/$/, ""));
    }
  }
  return sources;
}

async function filesUnder(root: string, path: string): Promise<string[]> {
  const absolute = join(root, path);
  if (!(await stat(absolute)).isDirectory()) return [path];
  const entries = await readdir(absolute, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * .dockerignore semantics: patterns in order, the last one that matches a path (or one of its
 * parent folders) decides; `!` re-includes; `*` stays within a folder, `**` crosses folders.
 */
function ignoreMatcher(text: string): (path: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const negated = line.startsWith("!");
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, "");
      return { negated, regex: globToRegex(pattern) };
    });
  return (path) => {
    const parts = path.split("/");
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join("/"));
    let ignored = false;
    for (const rule of rules) {
      if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.negated;
    }
    return ignored;
  };
}

function globToRegex(pattern: string): RegExp {
  let source = "";
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (pattern.startsWith("**/", index)) {
      source += "(?:.*/)?";
      index += 2;
    } else if (pattern.startsWith("**", index)) {
      source += ".*";
      index += 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
