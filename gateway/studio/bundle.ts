import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Studio's browser code: TypeScript under app/, bundled with esbuild when first asked for. */
export const STUDIO_APP_DIR = join(dirname(fileURLToPath(import.meta.url)), "app");

export interface StudioBundle {
  readonly js: Buffer;
  readonly css: Buffer;
}

/**
 * Throws, at the gateway's start, when the Studio is enabled but cannot be built here: the
 * production build ships neither the browser sources nor esbuild and the pose model (development
 * dependencies).
 */
export function checkStudioBuildable(): void {
  const missing = !existsSync(join(STUDIO_APP_DIR, "main.ts"))
    ? `the Studio's sources (${STUDIO_APP_DIR})`
    : ["esbuild", "@vladmandic/human", "@tensorflow/tfjs-backend-wasm"]
        .filter((name) => !canResolve(name))
        .map((name) => `the ${name} package (a development dependency)`)
        .join(" and ") || undefined;
  if (missing)
    throw new Error(
      `STUDIO_ENABLED: the Studio needs ${missing}; run from the source tree with dev dependencies, or set STUDIO_ENABLED=false`,
    );
}

function canResolve(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * One bundle per process, built on the first request for it rather than at start: every gateway
 * a test suite starts would otherwise pay for a build no browser asks for.
 */
export function lazyStudioBundle(): () => Promise<StudioBundle> {
  let built: Promise<StudioBundle> | undefined;
  return () => {
    built ??= buildStudioBundle().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}

/** The part of esbuild's API used here (its types are a development dependency too). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{
    outputFiles: { path: string; contents: Uint8Array }[];
  }>;
}

export async function buildStudioBundle(): Promise<StudioBundle> {
  // A variable, so that the production build (which compiles without esbuild) does not resolve it.
  const name = "esbuild";
  const esbuild = (await import(name)) as Esbuild;
  const result = await esbuild.build({
    entryPoints: {
      app: join(STUDIO_APP_DIR, "main.ts"),
      style: join(STUDIO_APP_DIR, "studio.css"),
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "eof",
    write: false,
    outdir: "/studio-out",
    logLevel: "silent",
  });
  const output = (name: string) => {
    const file = result.outputFiles.find((f) => f.path.endsWith(`/${name}`));
    if (!file) throw new Error(`the Studio bundle has no ${name}`);
    return Buffer.from(file.contents);
  };
  return { js: output("app.js"), css: output("style.css") };
}
