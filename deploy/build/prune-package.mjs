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
// Plain JavaScript: it runs before any dependency (tsx included) is installed.
import { readFileSync, writeFileSync } from "node:fs";

const [file, keepList = ""] = process.argv.slice(2);
if (!file) {
  console.error(
    "usage: prune-package.mjs <package.json> [comma-separated devDependencies to keep]",
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
const pruned = Object.keys(devDependencies).length > 0 ? { ...rest, devDependencies } : rest;
writeFileSync(file, `${JSON.stringify(pruned, null, 2)}\n`);
