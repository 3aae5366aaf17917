#!/usr/bin/env node
// Places the project's own packages (the npm workspaces: docs/architecture.md, "Packages") in a
// production build, as any dependency: node_modules/@movement-detection/<name>/ holds the package's
// compiled JavaScript (moved out of dist/) and its package.json, whose exports name the .js files
// instead of the .ts sources. Only what was compiled is placed and exported: a package the
// services do not run (the SDK) or a subpath left out of the build (the MoveSpec CLI) is not
// there, so importing it fails at once with the resolver's "not exported" error.
//
//   node deploy/build/place-packages.mjs <repo> <out-dir>
//
// Plain JavaScript: it runs where only the production dependencies are installed.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

const [repo, out] = process.argv.slice(2);
if (!repo || !out) {
  console.error("usage: place-packages.mjs <repo> <out-dir>");
  process.exit(2);
}
const json = (file) => JSON.parse(readFileSync(file, "utf8"));

// The packages are the compiled folders whose source folder has a package.json (the build stage
// has pruned the workspaces list from the root package.json before this runs).
const folders = readdirSync(join(out, "dist"), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(entry.parentPath, entry.name).slice(join(out, "dist").length + 1))
  .filter((folder) => existsSync(join(repo, folder, "package.json")));

for (const folder of folders) {
  const pkg = json(join(repo, folder, "package.json"));
  const compiled = join(out, "dist", folder);
  const exports = Object.fromEntries(
    Object.entries(pkg.exports)
      .map(([subpath, target]) => [subpath, target.replace(/\.ts$/, ".js")])
      .filter(([, target]) => existsSync(join(compiled, target))),
  );
  const target = join(out, "node_modules", pkg.name);
  mkdirSync(dirname(target), { recursive: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(compiled, target);
  const { name, version, type } = pkg;
  writeFileSync(
    join(target, "package.json"),
    `${JSON.stringify({ name, version, private: true, type, exports }, null, 2)}\n`,
  );
}
// Folders emptied by the moves (dist/services once services/shared has gone, etc.) stay: the
// services' own code is still beside them.
