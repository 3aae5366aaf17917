/**
 * The services, the gateway and the embedded store compiled once per test run, for the test
 * systems and the store tests to start with plain node: a process loading its few hundred modules
 * through tsx's loader hooks takes about twice as long to serve, and the suite starts some thirty
 * systems and as many stores. The services' code is the same the production image runs
 * (tsconfig.build.json, TypeScript 7); ./tsconfig.compiled-tree.json adds the store, which
 * production does not ship. The command-line tools still run from source, as users run them.
 *
 * TEST_SERVICES_FROM_SOURCE=1 runs the sources through tsx instead (stack traces then name the
 * .ts files).
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const REPO_ROOT = resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

let tree: Promise<string> | undefined;

/** The compiled tree's root (its `services/` and `gateway/`), or undefined to run the sources. */
export function compiledTree(): Promise<string | undefined> {
  if (process.env.TEST_SERVICES_FROM_SOURCE === "1") return Promise.resolve(undefined);
  tree ??= build();
  return tree;
}

async function build(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "mds-test-build-"));
  process.once("exit", () => rmSync(root, { recursive: true, force: true }));
  const dist = join(root, "dist");
  try {
    await execFileAsync(
      join(REPO_ROOT, "node_modules/.bin/tsc"),
      ["-p", join(REPO_ROOT, "test/support/tsconfig.compiled-tree.json"), "--outDir", dist],
      { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`compiling the services for the test systems failed:\n${stdout}${stderr}`);
  }
  // Bare imports resolve to the repository's dependencies, linked one by one, except the project's
  // own packages: their compiled code is placed as the production build places it (their links
  // in the repository lead to the .ts sources). package.json makes the .js files ESM.
  const modules = join(root, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (name !== "@movement-detection")
      symlinkSync(join(REPO_ROOT, "node_modules", name), join(modules, name), "dir");
  }
  await execFileAsync(process.execPath, [
    join(REPO_ROOT, "deploy/build/place-packages.mjs"),
    REPO_ROOT,
    root,
  ]);
  copyFileSync(join(REPO_ROOT, "package.json"), join(root, "package.json"));
  // Read by the running gateway from the source tree: the Studio's browser code (bundled on
  // first request) and the example MoveSpecs and UI-PRMD recordings it offers.
  for (const path of ["gateway/studio/app", "test", "examples"]) {
    symlinkSync(join(REPO_ROOT, path), join(dist, path), "dir");
  }
  return dist;
}
