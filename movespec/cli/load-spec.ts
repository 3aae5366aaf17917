/** Reads and loads a MoveSpec file for a command, printing each issue as file:line:column. */
import { readFileSync } from "node:fs";
import type { Issue } from "../issues.js";
import { type LoadResult, load } from "../load/load.js";
import type { Io } from "./output.js";

export function formatIssue(file: string, i: Issue): string {
  const where = i.line !== undefined ? `${file}:${i.line}:${i.column}` : file;
  return `${where}: ${i.severity} ${i.code}: ${i.message}${i.path ? ` (${i.path})` : ""}`;
}

/** The file's text and what loading it gave; undefined when it cannot be read (said on stderr). */
export function readSpecFile(
  file: string,
  io: Io,
): { source: string; result: LoadResult } | undefined {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (err) {
    io.stderr.write(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}\n`);
    return undefined;
  }
  const result = load(source);
  for (const i of [...result.errors, ...result.warnings])
    io.stderr.write(`${formatIssue(file, i)}\n`);
  return { source, result };
}
