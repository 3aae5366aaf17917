/**
 * Debian's Chromium (installed by .ci/run) driven by playwright-core, for the tests of the pages
 * the gateway serves (/docs, /studio). CHROMIUM_PATH points elsewhere.
 */
import { existsSync } from "node:fs";
import { CHROMIUM_ARGS } from "@movement-detection/movespec/video";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless, offline-minded flags plus `extraArgs`; a missing browser is an error, not a skip. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium package`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}
