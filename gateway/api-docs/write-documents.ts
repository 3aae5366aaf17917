/**
 * Writes the generated API documents into the repository (`npm run generate`), so that a clone
 * has them and a review shows every change of the API, and the SDK's types generated from them. test/api/documents.test.ts fails when the
 * files are stale.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkApiSource } from "@movement-detection/sdk/generate";
import { asyncApiDocument } from "./asyncapi.js";
import { openApiDocument } from "./openapi.js";

export const DOCUMENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../docs/api");
export const SDK_API_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../sdk/src/generated/api.ts",
);

export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(join(DOCUMENTS_DIR, "openapi.json"), documentText(openApiDocument()));
  writeFileSync(join(DOCUMENTS_DIR, "asyncapi.json"), documentText(asyncApiDocument()));
  writeFileSync(SDK_API_FILE, sdkApiSource(openApiDocument(), asyncApiDocument()));
  console.log(`wrote ${DOCUMENTS_DIR}/openapi.json, asyncapi.json and ${SDK_API_FILE}`);
}
