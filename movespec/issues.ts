/** Validation issues, as returned by `load()` and shown to MoveSpec authors. */
import type { ErrorCode, IssueCode, WarningCode } from "./issue-codes.js";

export type Severity = "error" | "warning";

export interface Issue {
  code: IssueCode;
  message: string;
  severity: Severity;
  /** 1-based line in the YAML source. */
  line?: number;
  /** 1-based column in the YAML source. */
  column?: number;
  /** Dotted path into the document, e.g. `phases.down.enter`. */
  path?: string;
}

export interface Position {
  line: number;
  column: number;
}

/** Collects issues while loading, sorted by position at the end so output is stable. */
export class IssueList {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];

  error(code: ErrorCode, message: string, at?: { pos?: Position; path?: string }): void {
    this.errors.push(makeIssue(code, message, "error", at));
  }

  warn(code: WarningCode, message: string, at?: { pos?: Position; path?: string }): void {
    this.warnings.push(makeIssue(code, message, "warning", at));
  }

  sorted(): { errors: Issue[]; warnings: Issue[] } {
    return { errors: sortIssues(this.errors), warnings: sortIssues(this.warnings) };
  }
}

function makeIssue(
  code: IssueCode,
  message: string,
  severity: Severity,
  at?: { pos?: Position; path?: string },
): Issue {
  const issue: Issue = { code, message, severity };
  if (at?.pos) {
    issue.line = at.pos.line;
    issue.column = at.pos.column;
  }
  if (at?.path) issue.path = at.path;
  return issue;
}

function sortIssues(list: Issue[]): Issue[] {
  const seen = new Set<string>();
  const unique = list.filter((i) => {
    const key = `${i.code}|${i.line}|${i.column}|${i.path}|${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique
    .map((issue, order) => ({ issue, order }))
    .sort(
      (a, b) =>
        (a.issue.line ?? Number.MAX_SAFE_INTEGER) - (b.issue.line ?? Number.MAX_SAFE_INTEGER) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.order - b.order,
    )
    .map((x) => x.issue);
}
