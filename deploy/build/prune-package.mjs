#!/usr/bin/env node
// Rewrites a package.json for an install that needs only some of the project's packages:
//
//   node deploy/build/prune-package.mjs <package.json>                    run time: dependencies only
//   node deploy/build/prune-package.mjs <package.json> 'typescript,@types/*'   plus the build's tools
//
// Why not `npm ci --omit=dev` on the full package.json: npm validates the whole tree against the
// lock file before omitting anything, and the lock file lacks the platform packages of some dev
// tools (Biome publishes one per OS; the registry reachable here serves only some of them), so
// the full `npm ci` fails before it starts. With the unused dev tools gone from package.json,
// `npm ci` still installs every remaining package at exactly its locked version and integrity.
//
// The workspaces (the project's own packages, docs/architecture.md "Packages") go too, from
// package.json and from the package-lock.json beside it, unless --keep-workspaces (the build
// stage, whose tsc resolves them through their links): the production install has no sources to
// link, and the production build places their compiled code itself (place-packages.mjs).
//
// Plain JavaScript: it runs before any dependency (tsx included) is installed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const args = process.argv.slice(2);
// The build stage keeps them: tsc resolves the packages through their workspace links.
const keepWorkspaces = args[0] === "--keep-workspaces";
const [file, keepList = ""] = keepWorkspaces ? args.slice(1) : args;
if (!file) {
  console.error(
    "usage: prune-package.mjs [--keep-workspaces] <package.json> [comma-separated devDependencies to keep]",
  );
  process.exit(2);
}
const keep = keepList
  .split(",")
  .map((pattern) => pattern.trim())
  .filter((pattern) => pattern !== "");
const kept = (name) =>
  keep.some((pattern) =>
    pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );

const pkg = JSON.parse(readFileSync(file, "utf8"));
const devDependencies = Object.fromEntries(
  Object.entries(pkg.devDependencies ?? {}).filter(([name]) => kept(name)),
);
// Scripts go too: nothing at run time is started through npm.
const { scripts: _scripts, devDependencies: _dev, ...rest } = pkg;
const workspaces = keepWorkspaces ? [] : (rest.workspaces ?? []);
if (!keepWorkspaces) delete rest.workspaces;
const pruned = Object.keys(devDependencies).length > 0 ? { ...rest, devDependencies } : rest;
writeFileSync(file, `${JSON.stringify(pruned, null, 2)}\n`);

const lockFile = join(dirname(file), "package-lock.json");
if (workspaces.length > 0 && existsSync(lockFile)) {
  const lock = JSON.parse(readFileSync(lockFile, "utf8"));
  const { workspaces: _ws, ...root } = lock.packages[""];
  const packages = Object.fromEntries(
    Object.entries({ ...lock.packages, "": root }).filter(
      ([path, entry]) => !workspaces.includes(path) && !workspaces.includes(entry.resolved),
    ),
  );
  writeFileSync(lockFile, `${JSON.stringify({ ...lock, packages }, null, 2)}\n`);
}
