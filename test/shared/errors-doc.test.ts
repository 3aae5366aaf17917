/**
 * docs/errors.md is the public list of error codes and reasons: it must say exactly what the
 * code does, both ways (every documented reason exists, every reason is documented, with the same
 * code, status and retryability).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_REASONS } from "@movement-detection/shared/errors";
import { expect } from "chai";
import { API_ERROR_CODES, CODE_FROM_REASON } from "../../gateway/errors/error-codes.js";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/errors.md"), "utf8");

/** The rows of the markdown table under `## heading`, as arrays of trimmed cells. */
function tableUnder(heading: string): string[][] {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "## ${heading}" section`);
  const section = DOC.slice(start + 1).split(/\n## /)[0];
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
  return rows.slice(2); // header and separator
}

/** Reasons whose HTTP status is not their code's own (documented as such). */
const STATUS_EXCEPTIONS: Readonly<Record<string, number>> = { HEADERS_TOO_LARGE: 431 };

describe("docs/errors.md agrees with the error types", () => {
  const codes = tableUnder("Codes");
  const reasons = tableUnder("Reasons");

  it("lists every public code once, with its status and retryability", () => {
    const documented = Object.fromEntries(
      codes.map(([code, status, retryable]) => [
        code,
        { status: Number(status), retryable: retryable === "true" },
      ]),
    );
    expect(codes.length, "no code listed twice").to.equal(Object.keys(documented).length);
    expect(documented).to.deep.equal(API_ERROR_CODES);
  });

  it("lists every reason once, and nothing that is not a reason", () => {
    const documented = reasons.map(([reason]) => reason);
    expect(new Set(documented).size, "no reason listed twice").to.equal(documented.length);
    expect([...documented].sort()).to.deep.equal([...ERROR_REASONS].sort());
  });

  it("gives each reason the code the gateway answers with", () => {
    const documented = Object.fromEntries(reasons.map(([reason, code]) => [reason, code]));
    expect(documented).to.deep.equal(CODE_FROM_REASON);
  });

  it("gives each reason the status and retryability of its code", () => {
    for (const [reason, code, status, retryable, raisedBy, meaning] of reasons) {
      const rule = API_ERROR_CODES[code as keyof typeof API_ERROR_CODES];
      expect(rule, `${reason}: unknown code ${code}`).to.not.equal(undefined);
      expect(Number(status), `${reason}'s HTTP status`).to.equal(
        STATUS_EXCEPTIONS[reason] ?? rule.status,
      );
      expect(retryable, `${reason}'s retryability`).to.equal(String(rule.retryable));
      expect(raisedBy, `${reason}: who raises it`).to.not.equal("");
      expect(meaning, `${reason}: its meaning`).to.not.equal("");
    }
  });
});
