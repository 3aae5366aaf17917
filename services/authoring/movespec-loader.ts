/**
 * The one place the authoring service reaches the MoveSpec language: validation and version
 * creation both go through `loadMoveSpec`, so they judge a draft exactly as the runtime will.
 *
 * TEMPORARY SEAM: the MoveSpec library (`services/shared/movespec/index.ts`) does not export
 * `load` yet. Until it does, this is a YAML-syntax-only validator built on the `yaml` package.
 * Replace the body with `export { load as loadMoveSpec, MOVESPEC_TEMPLATE } from
 * "../shared/movespec/index.js";` as soon as it exists.
 */
import { LineCounter, parseDocument } from "yaml";

export interface LoaderIssue {
  code: string;
  message: string;
  severity: "error" | "warning";
  line?: number;
  column?: number;
  path?: string;
}

export interface LoaderResult {
  errors: LoaderIssue[];
  warnings: LoaderIssue[];
}

/** The draft every new MoveSpec starts from. */
export const MOVESPEC_TEMPLATE = `movespec: 1
name: New movement
`;

export function loadMoveSpec(yamlSource: string): LoaderResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlSource, { lineCounter, prettyErrors: false });
  const errors: LoaderIssue[] = document.errors.map((error) => {
    const position = lineCounter.linePos(error.pos[0]);
    return {
      code: "YAML_SYNTAX",
      message: error.message.split("\n")[0],
      severity: "error",
      line: position.line,
      column: position.col,
    };
  });
  if (errors.length === 0 && document.contents === null) {
    errors.push({
      code: "FIELD_REQUIRED",
      message: "the MoveSpec is empty",
      severity: "error",
      line: 1,
      column: 1,
    });
  }
  return { errors, warnings: [] };
}
