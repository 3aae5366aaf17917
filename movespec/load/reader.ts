/** Typed access to the positioned YAML tree, reporting precise issues for wrong shapes. */
import { parseDuration } from "../duration.js";
import type { IssueList } from "../issues.js";
import type { ConditionSite } from "./check-thresholds.js";
import type { YEntry, YMap, YNode, YScalar } from "./yaml-tree.js";

export function at(node: YNode): { pos: YNode["pos"]; path?: string } {
  return { pos: node.pos, path: node.path || undefined };
}

function describe(node: YNode): string {
  if (node.kind === "map") return "a mapping";
  if (node.kind === "seq") return "a list";
  if (node.value === null) return "nothing";
  if (typeof node.value === "number" && !Number.isFinite(node.value)) {
    return Number.isNaN(node.value) ? "not-a-number (.nan)" : "an infinity (.inf)";
  }
  return typeof node.value === "string" ? "text" : typeof node.value;
}

/** Levenshtein distance, bounded to short names (used for "did you mean"). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3 || a.length > 40 || b.length > 40) return 99;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** The candidate closest to `name` (at most two edits away), if any. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

export function suggestion(name: string, candidates: Iterable<string>): string {
  const best = closest(name, candidates);
  return best ? ` (did you mean '${best}'?)` : "";
}

export class Reader {
  /** Every condition read (phases, form rules, start), for the checks that need all signals. */
  readonly conditions: ConditionSite[] = [];

  constructor(readonly issues: IssueList) {}

  map(node: YNode | undefined, what: string): YMap | undefined {
    if (!node) return undefined;
    if (node.kind !== "map") {
      this.issues.error(
        "TYPE_MISMATCH",
        `${what} must be a mapping, found ${describe(node)}`,
        at(node),
      );
      return undefined;
    }
    return node;
  }

  /**
   * Reports keys not in `known` and returns a lookup of the entries. A misspelt key (`exti`) is
   * reported once and then read as the key it was meant to be, when that one is not also given:
   * its absence would otherwise raise errors that only follow from the typo.
   */
  keys(node: YMap, known: readonly string[], what: string): Map<string, YEntry> {
    const out = new Map<string, YEntry>();
    const misspelt: [YEntry, string][] = [];
    for (const e of node.entries) {
      if (!known.includes(e.key)) {
        const meant = closest(e.key, known);
        this.issues.error(
          "UNKNOWN_KEY",
          `unknown key '${e.key}' in ${what}${meant ? ` (did you mean '${meant}'?)` : `; expected one of ${known.join(", ")}`}`,
          {
            pos: e.keyPos,
            path: node.path ? `${node.path}.${e.key}` : e.key,
          },
        );
        if (meant) misspelt.push([e, meant]);
        continue;
      }
      out.set(e.key, e);
    }
    for (const [e, meant] of misspelt) if (!out.has(meant)) out.set(meant, e);
    return out;
  }

  required(
    entries: Map<string, YEntry>,
    key: string,
    parent: YMap,
    what: string,
  ): YNode | undefined {
    const e = entries.get(key);
    if (!e) {
      this.issues.error("FIELD_REQUIRED", `${what} needs '${key}'`, {
        pos: parent.pos,
        path: parent.path ? `${parent.path}.${key}` : key,
      });
      return undefined;
    }
    return e.value;
  }

  string(
    node: YNode | undefined,
    what: string,
    opts: { maxLength?: number } = {},
  ): string | undefined {
    if (!node) return undefined;
    if (node.kind !== "scalar" || typeof node.value !== "string") {
      if (
        node.kind === "scalar" &&
        (typeof node.value === "number" || typeof node.value === "boolean")
      ) {
        return String(node.value);
      }
      this.issues.error("TYPE_MISMATCH", `${what} must be text, found ${describe(node)}`, at(node));
      return undefined;
    }
    if (opts.maxLength !== undefined && node.value.length > opts.maxLength) {
      this.issues.error(
        "VALUE_INVALID",
        `${what} is longer than ${opts.maxLength} characters`,
        at(node),
      );
      return undefined;
    }
    return node.value;
  }

  /** A string scalar, with its node for positions inside it. */
  text(node: YNode | undefined, what: string): YScalar | undefined {
    if (!node) return undefined;
    if (
      node.kind === "scalar" &&
      (typeof node.value === "string" || typeof node.value === "number")
    )
      return node;
    this.issues.error("TYPE_MISMATCH", `${what} must be text, found ${describe(node)}`, at(node));
    return undefined;
  }

  number(
    node: YNode | undefined,
    what: string,
    range?: { min?: number; max?: number; integer?: boolean },
  ): number | undefined {
    if (!node) return undefined;
    if (node.kind !== "scalar" || typeof node.value !== "number" || !Number.isFinite(node.value)) {
      this.issues.error(
        "TYPE_MISMATCH",
        `${what} must be a number, found ${describe(node)}`,
        at(node),
      );
      return undefined;
    }
    const v = node.value;
    if (
      (range?.min !== undefined && v < range.min) ||
      (range?.max !== undefined && v > range.max) ||
      (range?.integer && !Number.isInteger(v))
    ) {
      const bounds = [
        range?.min !== undefined ? `at least ${range.min}` : "",
        range?.max !== undefined ? `at most ${range.max}` : "",
      ]
        .filter(Boolean)
        .join(" and ");
      this.issues.error(
        "VALUE_INVALID",
        `${what} must be ${range?.integer ? "an integer " : ""}${bounds}`,
        at(node),
      );
      return undefined;
    }
    return v;
  }

  boolean(node: YNode | undefined, what: string): boolean | undefined {
    if (!node) return undefined;
    if (node.kind !== "scalar" || typeof node.value !== "boolean") {
      this.issues.error(
        "TYPE_MISMATCH",
        `${what} must be true or false, found ${describe(node)}`,
        at(node),
      );
      return undefined;
    }
    return node.value;
  }

  /**
   * A duration: `0.5s`, `500ms`, `2 min`, or a bare number of seconds. Bare numbers are where
   * authors slip (`for: 100` meant as milliseconds), so an out-of-range bare number says what it
   * meant, and for durations that are `usually` short a bare number of 10 or more is a warning.
   */
  duration(
    node: YNode | undefined,
    what: string,
    opts: { max?: number; usually?: "short" } = {},
  ): number | undefined {
    if (!node) return undefined;
    const max = opts.max ?? 3600;
    const v = node.kind === "scalar" ? parseDuration(node.value) : undefined;
    if (v === undefined) {
      this.issues.error(
        "DURATION_INVALID",
        `${what} must be a duration such as 0.5s, 500ms or 2 (seconds)`,
        at(node),
      );
      return undefined;
    }
    const bare = node.kind === "scalar" && isBareNumber(node.value);
    const asMs = `did you mean ${v}ms? (a bare number is seconds)`;
    if (v > max) {
      this.issues.error(
        "VALUE_INVALID",
        `${what} must be at most ${max} s${bare ? `: ${v} means ${v} seconds; ${asMs}` : ""}`,
        at(node),
      );
      return undefined;
    }
    if (bare && opts.usually === "short" && v >= BARE_SECONDS_SUSPECT)
      this.issues.warn(
        "DURATION_BARE_NUMBER",
        `${what}: ${v} means ${v} seconds; did you mean ${v}ms? Write ${v}ms, or ${v}s to keep seconds`,
        at(node),
      );
    return v;
  }

  oneOf<T extends string>(
    node: YNode | undefined,
    what: string,
    values: readonly T[],
  ): T | undefined {
    if (!node) return undefined;
    const s = node.kind === "scalar" && typeof node.value === "string" ? node.value : undefined;
    if (s === undefined || !values.includes(s as T)) {
      const shown = node.kind === "scalar" ? `'${String(node.value)}'` : describe(node);
      this.issues.error(
        "VALUE_INVALID",
        `${what} must be one of ${values.join(", ")}; found ${shown}${s ? suggestion(s, values) : ""}`,
        at(node),
      );
      return undefined;
    }
    return s as T;
  }

  list(node: YNode | undefined, what: string): YNode[] | undefined {
    if (!node) return undefined;
    if (node.kind !== "seq") {
      this.issues.error(
        "TYPE_MISMATCH",
        `${what} must be a list, found ${describe(node)}`,
        at(node),
      );
      return undefined;
    }
    return [...node.items];
  }

  /** A list of names, also accepted as one string `a -> b -> c` or `a, b`. */
  names(node: YNode | undefined, what: string): { name: string; node: YNode }[] | undefined {
    if (!node) return undefined;
    if (node.kind === "scalar" && typeof node.value === "string") {
      const parts = node.value.split(/\s*(?:->|→|,)\s*/).map((part) => part.trim());
      // Every separator between two names: `a -> -> b` or a dangling `a -> b ->` (an intended
      // closed cycle read as an open one) is a mistake, not a shorter list.
      if (parts.length > 1 && parts.some((part) => part === "")) {
        this.issues.error(
          "VALUE_INVALID",
          `${what} has a separator (->, comma) with no name on one side: '${node.value.trim()}'`,
          at(node),
        );
        return undefined;
      }
      return parts.filter((part) => part !== "").map((name) => ({ name, node }));
    }
    const items = this.list(node, what);
    if (!items) return undefined;
    const out: { name: string; node: YNode }[] = [];
    let failed = false;
    for (const item of items) {
      const s = this.string(item, `each entry of ${what}`);
      if (s !== undefined) out.push({ name: s, node: item });
      else failed = true;
    }
    // One root error: a list with an entry that is not a name is not read as the rest of it
    // (`[up, [down], up]` is not `[up, up]`, a phase repeated).
    return failed ? undefined : out;
  }
}

/** A bare number this large, for a duration that is usually short, was probably meant in ms. */
const BARE_SECONDS_SUSPECT = 10;

function isBareNumber(value: unknown): boolean {
  return typeof value === "number" || (typeof value === "string" && /^\s*[\d.]+\s*$/.test(value));
}

export const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;
