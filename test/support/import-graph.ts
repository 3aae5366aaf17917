/**
 * The repository's import graph as TypeScript itself parses and resolves it (`tsc --explainFiles`
 * lists, for every file of a program, each import that brought it in), and the boundaries it must
 * keep: one table of the areas each area may import (docs/architecture.md, "Packages").
 *
 * Why tsc and not a pattern over import strings: a relative path means nothing without its
 * importer (`../movespec/support/x.js` is a test helper from test/realtime, the package from
 * gateway/), and type-only imports count too. Why not a lint rule: Biome's noRestrictedImports
 * sees the string only.
 */
import { execFile } from "node:child_process";
import { relative, resolve } from "node:path";
import { promisify } from "node:util";

export interface ImportEdge {
  /** Repository-relative paths. */
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

/** The workspace packages: imported by name only from outside (their exports maps). */
export const PACKAGES: Readonly<Record<string, string>> = {
  movespec: "movespec/",
  proto: "proto/",
  sdk: "sdk/",
  shared: "services/shared/",
};

/**
 * The areas, most specific first: a file belongs to the first whose folder holds it. Tests,
 * benchmarks, examples and the local deployment may import any area (packages by name).
 */
const AREAS: readonly (readonly [area: string, folder: string])[] = [
  ["shared", "services/shared/"],
  ["movespec", "movespec/"],
  ["sdk", "sdk/"],
  ["proto", "proto/"],
  ["auth", "services/auth/"],
  ["authoring", "services/authoring/"],
  ["catalogue", "services/catalogue/"],
  ["detection", "services/detection/"],
  ["embedded-mongo", "services/embedded-mongo/"],
  ["admin", "services/admin/"],
  ["gateway", "gateway/"],
];

const SERVICE = ["shared", "movespec", "proto"];
/**
 * The one rule table: which areas each area may import besides its own files. A service talks to
 * another only through the generated clients (proto), never through its files; the gateway
 * likewise; services/shared is shared by every service and imports none of them.
 */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  movespec: ["sdk"],
  sdk: [],
  shared: ["movespec", "proto"],
  proto: [],
  auth: SERVICE,
  authoring: SERVICE,
  catalogue: SERVICE,
  detection: SERVICE,
  "embedded-mongo": ["shared"],
  admin: SERVICE,
  gateway: [...SERVICE, "sdk"],
};

export function areaOf(path: string): string | undefined {
  return AREAS.find(([, folder]) => path.startsWith(folder))?.[0];
}

/** Why an edge is refused, or undefined when it is allowed. */
export function violation(edge: ImportEdge): string | undefined {
  if (edge.to.startsWith("node_modules/")) return undefined;
  const from = areaOf(edge.from);
  const to = areaOf(edge.to);
  if (from === to) return undefined;
  const relativePath = edge.specifier.startsWith(".");
  if (relativePath && to !== undefined && to in PACKAGES)
    return `${edge.from} imports ${edge.specifier}: a relative path into the ${to} package; import @movement-detection/${to} (its exports) instead`;
  if (relativePath && from !== undefined && from in PACKAGES)
    return `${edge.from} imports ${edge.specifier}: a relative path out of the ${from} package`;
  if (from === undefined || to === undefined) return undefined;
  if (!ALLOWED[from]?.includes(to))
    return `${edge.from} imports ${edge.specifier} (${to}): ${from} may import only its own files${ALLOWED[from]?.length ? ` and ${ALLOWED[from].join(", ")}` : ""}`;
  return undefined;
}

const FILE_LINE = /^\S.*$/;
const IMPORTED = /^\s+Imported via (".*"|'.*') from file '(.+?)'/;

/** Every import edge of a TypeScript project (its tsconfig), as tsc resolves it, without checking types. */
export async function importEdges(root: string, project: string): Promise<ImportEdge[]> {
  const tsc = resolve(root, "node_modules/.bin/tsc");
  const { stdout } = await promisify(execFile)(
    tsc,
    ["-p", project, "--noEmit", "--noCheck", "--explainFiles"],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string; message: string }) => {
    // tsc exits non-zero on a resolution error, and still lists what it found.
    if (error.stdout) return { stdout: error.stdout };
    throw error;
  });
  const repoPath = (path: string) => relative(root, resolve(root, path)).replaceAll("\\", "/");
  const edges: ImportEdge[] = [];
  let current: string | undefined;
  for (const line of stdout.split("\n")) {
    const imported = IMPORTED.exec(line);
    if (imported && current)
      edges.push({
        from: repoPath(imported[2]),
        to: current,
        specifier: imported[1].slice(1, -1),
      });
    else if (FILE_LINE.test(line) && !line.includes(" ")) current = repoPath(line.trim());
  }
  return edges;
}
