/**
 * The packages' boundaries (docs/architecture.md, "Packages"): every import of the tree, as tsc
 * resolves it, keeps the rule table of test/support/import-graph.ts; a planted forbidden import is
 * refused; node's resolver refuses a path a package does not export.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { importEdges, PACKAGES, violation } from "../support/import-graph.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** The three programs `npm run typecheck` checks: between them, every TypeScript file. */
const PROJECTS = [".", "gateway/studio/app", "tsconfig.browser.json"];

describe("import boundaries", () => {
  it("no import in the tree crosses a boundary the rule table forbids", async () => {
    const edges = (await Promise.all(PROJECTS.map((p) => importEdges(REPO, p)))).flat();
    // Enough edges that a broken parse of tsc's output cannot pass as "no violations".
    expect(edges.length).to.be.greaterThan(5000);
    expect(edges.some((e) => e.specifier === "@movement-detection/shared/config")).to.equal(true);
    expect(edges.map(violation).filter((v) => v !== undefined)).to.deep.equal([]);
  });

  it("refuses planted imports: another service's files, a relative path into or out of a package", async () => {
    const root = await mkdtemp(join(tmpdir(), "import-boundaries-"));
    try {
      const files: Record<string, string> = {
        "tsconfig.json": JSON.stringify({
          compilerOptions: { module: "nodenext", strict: true, noEmit: true, types: [] },
          include: ["**/*.ts"],
        }),
        "services/authoring/domain/project.ts": "export const project = 1;\n",
        "services/auth/deep/er/planted.ts":
          'import { project } from "../../../authoring/domain/project.js";\nexport const p = project;\n',
        "movespec/index.ts": "export const load = 1;\n",
        "gateway/routes/planted.ts":
          'import { load } from "../../movespec/index.js";\nexport const l = load;\n',
        "services/shared/config/planted.ts":
          'import type { p } from "../../auth/deep/er/planted.js";\nexport type P = typeof p;\n',
      };
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(root, path)), { recursive: true });
        await writeFile(join(root, path), text);
      }
      await mkdir(join(root, "node_modules/.bin"), { recursive: true });
      await symlink(join(REPO, "node_modules/.bin/tsc"), join(root, "node_modules/.bin/tsc"));
      const refused = (await importEdges(root, ".")).map(violation).filter(Boolean);
      expect(refused).to.have.length(3);
      expect(refused.join("\n"))
        .to.contain("services/auth/deep/er/planted.ts imports ../../../authoring/domain/project.js")
        .and.to.contain("a relative path into the movespec package")
        .and.to.contain("a relative path out of the shared package");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("node's resolver refuses a path a package does not export, and resolves the ones it does", async () => {
    const require = createRequire(join(REPO, "package.json"));
    for (const deep of [
      "@movement-detection/movespec/engine/events.js",
      "@movement-detection/shared/config/env.js",
      "@movement-detection/sdk/src/index.ts",
    ])
      expect(() => require.resolve(deep), deep).to.throw(/is not defined by "exports"/);
    expect(require.resolve("@movement-detection/movespec/engine")).to.match(
      /\/movespec\/engine\/index\.ts$/,
    );
    // The loader the code runs under (tsx, ESM) refuses it too.
    const deep = "@movement-detection/movespec/engine/events.js";
    const error = await import(deep).then(
      () => expect.fail("a deep import resolved"),
      (e: NodeJS.ErrnoException) => e,
    );
    expect(error.code).to.equal("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("every package's exports name files that exist", async () => {
    for (const folder of Object.values(PACKAGES)) {
      const pkg = JSON.parse(await readFile(join(REPO, folder, "package.json"), "utf8"));
      const targets = Object.values(pkg.exports as Record<string, string>);
      expect(targets.length, folder).to.be.greaterThan(0);
      for (const target of targets)
        expect(existsSync(join(REPO, folder, target)), target).to.equal(true);
    }
  });
});
