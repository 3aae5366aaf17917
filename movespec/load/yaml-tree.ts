/**
 * Parses YAML into a small positioned tree, refusing hostile input early.
 *
 * The `yaml` package parses linearly; what makes YAML dangerous is what happens after
 * (alias expansion, deep recursion). So: cheap pre-scan of the raw text, then parse, then walk
 * the parsed nodes ourselves with a node budget that counts every alias expansion, a depth cap,
 * a scalar length cap and a tag allow-list. `toJS()` is never called.
 */
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  Scalar,
} from "yaml";
import type { IssueList, Position } from "../issues.js";
import { LOAD_LIMITS } from "./limits.js";
import { type FlowStyle, scalarOffsets } from "./scalar-offsets.js";

export type YNode = YMap | YSeq | YScalar;

interface YBase {
  readonly pos: Position;
  readonly path: string;
}
export interface YMap extends YBase {
  readonly kind: "map";
  readonly entries: readonly YEntry[];
}
export interface YEntry {
  readonly key: string;
  readonly keyPos: Position;
  readonly value: YNode;
}
export interface YSeq extends YBase {
  readonly kind: "seq";
  readonly items: readonly YNode[];
}
export interface YScalar extends YBase {
  readonly kind: "scalar";
  readonly value: string | number | boolean | null;
  /**
   * The source offset of the character at `index` of the value's text (its length: where the
   * text ends), or undefined when that is not known exactly (block scalars, a number not written
   * as it prints): then point at the scalar.
   */
  readonly sourceOffset: (index: number) => number | undefined;
  /**
   * Where the scalar is written in the source, [start, end) (quotes included), when it is written
   * at all; through an alias, where its anchor is written.
   */
  readonly range?: readonly [number, number];
}

const ALLOWED_TAGS = new Set([
  "tag:yaml.org,2002:str",
  "tag:yaml.org,2002:int",
  "tag:yaml.org,2002:float",
  "tag:yaml.org,2002:bool",
  "tag:yaml.org,2002:null",
  "tag:yaml.org,2002:map",
  "tag:yaml.org,2002:seq",
]);

class Refusal extends Error {}

export interface ParsedYaml {
  root?: YNode;
  lineCounter: LineCounter;
  /** Converts an offset in the source to a 1-based position. */
  position(offset: number): Position;
}

/**
 * Bytes of `source` in UTF-8, without Node's Buffer: the loader also runs in browsers (MoveSpec
 * Studio validates as you type with it). A lone surrogate counts 3 bytes, as its U+FFFD would.
 */
export function utf8Length(source: string): number {
  let bytes = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < source.length) {
      const next = source.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function prescan(source: string, issues: IssueList): boolean {
  if (utf8Length(source) > LOAD_LIMITS.maxSourceBytes) {
    issues.error(
      "YAML_TOO_LARGE",
      `the MoveSpec is larger than ${LOAD_LIMITS.maxSourceBytes / 1024} KiB`,
      {
        pos: { line: 1, column: 1 },
      },
    );
    return false;
  }
  let line = 1;
  let lineStart = 0;
  let flowDepth = 0;
  let markers = 0;
  let contentSeen = false;
  let contentLines = 0;
  let separators = 0;
  let quote = "";
  for (let i = 0; i <= source.length; i++) {
    const c = i < source.length ? source.charCodeAt(i) : 10;
    if (c === 10) {
      if (i - lineStart > LOAD_LIMITS.maxLineLength) {
        issues.error(
          "YAML_LINE_TOO_LONG",
          `line ${line} is longer than ${LOAD_LIMITS.maxLineLength} characters`,
          {
            pos: { line, column: 1 },
          },
        );
        return false;
      }
      const text = source.slice(lineStart, Math.min(i, lineStart + 4));
      if (/^(---|\.\.\.)(\s|$)/.test(text) || text === "---" || text === "...") {
        // A document marker after content, or a second `---`, starts another document.
        if (markers > 0 || contentSeen) {
          issues.error(
            "YAML_MULTIPLE_DOCUMENTS",
            "a MoveSpec is a single YAML document (found '---' or '...' here)",
            {
              pos: { line, column: 1 },
            },
          );
          return false;
        }
        if (text.startsWith("---")) markers++;
      } else if (markers === 0 && !contentSeen && text.startsWith("%")) {
        // A directive (%YAML 1.2, %TAG) before the document's `---`: not content.
      } else if (!/^\s*(#.*)?$/.test(source.slice(lineStart, Math.min(i, lineStart + 200)))) {
        contentSeen = true;
        if (++contentLines > LOAD_LIMITS.maxContentLines) {
          issues.error(
            "YAML_TOO_MANY_NODES",
            `more than ${LOAD_LIMITS.maxContentLines} lines of content`,
            { pos: { line, column: 1 } },
          );
          return false;
        }
      }
      line++;
      lineStart = i + 1;
      quote = "";
      continue;
    }
    const ch = source[i];
    if (quote) {
      if (ch === quote) quote = "";
      continue;
    }
    // Brackets inside quotes are text (an apostrophe in plain text only hides the rest of its
    // line from the count, which the parser then reads as text as well).
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "#") {
      const nl = source.indexOf("\n", i);
      i = (nl < 0 ? source.length : nl) - 1;
    } else if (ch === "[" || ch === "{") {
      if (++flowDepth > LOAD_LIMITS.maxFlowDepth) {
        issues.error("YAML_TOO_DEEP", `nesting deeper than ${LOAD_LIMITS.maxFlowDepth} levels`, {
          pos: { line, column: i - lineStart + 1 },
        });
        return false;
      }
    } else if (ch === "]" || ch === "}") flowDepth = Math.max(0, flowDepth - 1);
    else if (ch === "," || ch === ":" || ch === "-") {
      if (++separators > LOAD_LIMITS.maxSeparators) {
        issues.error("YAML_TOO_MANY_NODES", "too many entries for a MoveSpec", {
          pos: { line, column: i - lineStart + 1 },
        });
        return false;
      }
    }
  }
  return true;
}

/** Parses the source. On failure the issues say why and `root` is undefined. */
export function parseYaml(source: string, issues: IssueList): ParsedYaml {
  const lineCounter = new LineCounter();
  const position = (offset: number): Position => {
    const p = lineCounter.linePos(Math.max(0, offset));
    return { line: p.line, column: p.col };
  };
  const result: ParsedYaml = { lineCounter, position };
  if (!prescan(source, issues)) return result;

  let doc: Document.Parsed;
  try {
    doc = parseDocument(source, {
      lineCounter,
      prettyErrors: false,
      // The library checks duplicate keys pairwise (quadratic in the size of a mapping); we
      // check them with a set while walking the tree instead.
      uniqueKeys: false,
      // Authors share settings between phases or rules with `<<: *base`; the merge is done
      // while walking the tree (mergeEntries), within the same node and alias budgets.
      merge: true,
      strict: true,
      schema: "core",
      version: "1.2",
      keepSourceTokens: false,
    });
  } catch {
    issues.error("YAML_SYNTAX", "the YAML could not be parsed", { pos: { line: 1, column: 1 } });
    return result;
  }

  for (const e of doc.errors) {
    const pos = position(e.pos[0]);
    const firstLine = e.message.split("\n")[0];
    if (e.code === "DUPLICATE_KEY")
      issues.error("YAML_DUPLICATE_KEY", "this key appears twice in the same mapping", { pos });
    else if (/multiple documents/i.test(e.message))
      issues.error("YAML_MULTIPLE_DOCUMENTS", "a MoveSpec is a single YAML document", { pos });
    else issues.error("YAML_SYNTAX", `YAML syntax error: ${firstLine}`, { pos });
  }
  if (doc.errors.length > 0) return result;

  const walk: Walk = {
    doc,
    source,
    position,
    issues,
    budget: { nodes: 0, aliases: 0 },
    resolving: new Set(),
  };
  try {
    result.root = doc.contents ? convert(walk, doc.contents as Node, "", 0) : undefined;
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
  }
  if (issues.errors.length > 0) result.root = undefined;
  return result;
}

/** What the walk of one document shares: the source, where issues go, the budgets. */
interface Walk {
  readonly doc: Document.Parsed;
  readonly source: string;
  readonly position: (offset: number) => Position;
  readonly issues: IssueList;
  readonly budget: { nodes: number; aliases: number };
  /** The aliased nodes being converted, to refuse an alias inside its own anchor. */
  readonly resolving: Set<Node>;
}

function convert(walk: Walk, node: Node, path: string, depth: number): YNode {
  const { doc, position, issues, budget, resolving } = walk;
  const pos = position(node.range?.[0] ?? 0);
  const at = { pos, path: path || undefined };
  if (++budget.nodes > LOAD_LIMITS.maxNodes) {
    issues.error(
      "YAML_TOO_MANY_NODES",
      `the document expands to more than ${LOAD_LIMITS.maxNodes} nodes (alias bomb?)`,
      at,
    );
    throw new Refusal();
  }
  if (depth > LOAD_LIMITS.maxDepth) {
    issues.error("YAML_TOO_DEEP", `nesting deeper than ${LOAD_LIMITS.maxDepth} levels`, at);
    throw new Refusal();
  }
  if (isAlias(node)) {
    if (++budget.aliases > LOAD_LIMITS.maxAliases) {
      issues.error("YAML_TOO_MANY_ALIASES", `more than ${LOAD_LIMITS.maxAliases} aliases`, at);
      throw new Refusal();
    }
    const target = node.resolve(doc) as Node | undefined;
    if (!target || resolving.has(target)) {
      issues.error("YAML_SYNTAX", `alias *${node.source} does not refer to an earlier anchor`, at);
      throw new Refusal();
    }
    resolving.add(target);
    const out = convert(walk, target, path, depth);
    resolving.delete(target);
    // Report positions at the alias, where the author wrote it.
    return { ...out, pos, path };
  }
  const tag = (node as { tag?: string }).tag;
  if (tag && !ALLOWED_TAGS.has(tag)) {
    issues.error("YAML_TAG_NOT_ALLOWED", `the tag '${tag}' is not allowed in a MoveSpec`, at);
    throw new Refusal();
  }
  if (isMap(node)) {
    if (node.items.length > LOAD_LIMITS.maxCollectionSize) {
      issues.error(
        "YAML_TOO_MANY_NODES",
        `a mapping with more than ${LOAD_LIMITS.maxCollectionSize} entries`,
        at,
      );
      throw new Refusal();
    }
    // Merged entries go where their `<<` is, as the parser's own toJS() places them.
    const parts: (YEntry | { readonly merge: Node | null })[] = [];
    const seen = new Set<string>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      if (isMergeKey(keyNode)) {
        parts.push({ merge: pair.value as Node | null });
        continue;
      }
      if (
        !isScalar(keyNode) ||
        (typeof keyNode.value !== "string" && typeof keyNode.value !== "number")
      ) {
        issues.error("TYPE_MISMATCH", "mapping keys must be plain names", {
          pos: keyNode ? position(keyNode.range?.[0] ?? 0) : pos,
          path: path || undefined,
        });
        continue;
      }
      if (
        (keyNode as { tag?: string }).tag &&
        !ALLOWED_TAGS.has((keyNode as { tag?: string }).tag!)
      ) {
        issues.error(
          "YAML_TAG_NOT_ALLOWED",
          `the tag '${(keyNode as { tag?: string }).tag}' is not allowed in a MoveSpec`,
          {
            pos: position(keyNode.range?.[0] ?? 0),
          },
        );
        throw new Refusal();
      }
      const key = String(keyNode.value);
      if (key.length > LOAD_LIMITS.maxKeyLength) {
        issues.error(
          "YAML_SCALAR_TOO_LONG",
          `a key longer than ${LOAD_LIMITS.maxKeyLength} characters`,
          {
            pos: position(keyNode.range?.[0] ?? 0),
          },
        );
        throw new Refusal();
      }
      const childPath = path ? `${path}.${key}` : key;
      const keyPos = position(keyNode.range?.[0] ?? 0);
      if (seen.has(key)) {
        issues.error("YAML_DUPLICATE_KEY", `the key '${key}' appears twice in the same mapping`, {
          pos: keyPos,
          path: childPath,
        });
        continue;
      }
      seen.add(key);
      const valueNode = pair.value as Node | null;
      const value: YNode = valueNode
        ? convert(walk, valueNode, childPath, depth + 1)
        : {
            kind: "scalar",
            value: null,
            pos: keyPos,
            path: childPath,
            sourceOffset: unknownOffset,
          };
      parts.push({ key, keyPos, value });
    }
    // `seen` now holds every key written in this mapping: those win over the merged ones.
    const entries: YEntry[] = [];
    for (const part of parts) {
      if (!("merge" in part)) {
        entries.push(part);
        continue;
      }
      for (const entry of mergeEntries(walk, part.merge, path, depth, pos)) {
        if (seen.has(entry.key)) continue;
        seen.add(entry.key);
        entries.push(entry);
      }
    }
    return { kind: "map", entries, pos, path };
  }
  if (isSeq(node)) {
    if (node.items.length > LOAD_LIMITS.maxCollectionSize) {
      issues.error(
        "YAML_TOO_MANY_NODES",
        `a sequence with more than ${LOAD_LIMITS.maxCollectionSize} items`,
        at,
      );
      throw new Refusal();
    }
    const items = node.items.map((item, i) =>
      item
        ? convert(walk, item as Node, `${path}[${i}]`, depth + 1)
        : ({
            kind: "scalar",
            value: null,
            pos,
            path: `${path}[${i}]`,
            sourceOffset: unknownOffset,
          } as YScalar),
    );
    return { kind: "seq", items, pos, path };
  }
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === "string" && v.length > LOAD_LIMITS.maxScalarLength) {
      issues.error(
        "YAML_SCALAR_TOO_LONG",
        `a value longer than ${LOAD_LIMITS.maxScalarLength} characters`,
        at,
      );
      throw new Refusal();
    }
    let value: YScalar["value"];
    if (typeof v === "string" || typeof v === "boolean" || v === null) value = v;
    else if (typeof v === "number") value = v;
    else if (typeof v === "bigint") value = Number(v);
    else value = String(v);
    return {
      kind: "scalar",
      value,
      pos,
      path,
      sourceOffset: flowOffsets(walk.source, node, value === null ? "" : String(value)),
      range: node.range ? [node.range[0], node.range[1]] : undefined,
    };
  }
  issues.error("TYPE_MISMATCH", "unsupported YAML node", at);
  throw new Refusal();
}

const unknownOffset = (): undefined => undefined;

const FLOW_STYLES: Readonly<Record<string, FlowStyle>> = {
  [Scalar.PLAIN]: "plain",
  [Scalar.QUOTE_SINGLE]: "single",
  [Scalar.QUOTE_DOUBLE]: "double",
};

/**
 * `sourceOffset` of a scalar, worked out on first use: only expressions with an error need it,
 * and replaying the scalar's folding and escapes costs a pass over its text.
 */
function flowOffsets(source: string, node: Scalar, text: string): YScalar["sourceOffset"] {
  const style = node.type ? FLOW_STYLES[node.type] : undefined;
  if (!style || !node.range) return unknownOffset;
  const [start, end] = node.range;
  const quote = style === "plain" ? 0 : 1;
  let offsets: number[] | undefined;
  let replayed = false;
  return (index) => {
    if (!replayed) {
      offsets = scalarOffsets(source, start + quote, end - quote, style, text);
      replayed = true;
    }
    return offsets?.[index];
  };
}

/** A plain `<<` key, which the parser (with `merge`) reads as a symbol rather than text. */
function isMergeKey(key: Node | null): boolean {
  return isScalar(key) && typeof key.value === "symbol" && key.value.description === "<<";
}

/**
 * The entries a `<<` brings into the mapping at `path`: those of a mapping (usually an
 * alias of one) or of each mapping of a list, the first listed winning. Anything else is refused
 * outright: the mapping would lack the keys meant to be merged, and each would be reported
 * missing.
 */
function mergeEntries(
  walk: Walk,
  source: Node | null,
  path: string,
  depth: number,
  mapPos: Position,
): YEntry[] {
  const { position, issues } = walk;
  const convertMap = (node: Node | null): YMap | undefined => {
    if (!node) return undefined;
    const out = convert(walk, node, path, depth);
    return out.kind === "map" ? out : undefined;
  };
  const sources = isSeq(source)
    ? source.items.map((item) => convertMap(item as Node | null))
    : [convertMap(source)];
  if (sources.length === 0 || sources.some((m) => m === undefined)) {
    issues.error(
      "TYPE_MISMATCH",
      "a merge key (<<) takes a mapping, usually an alias of one (<<: *base), or a list of them",
      { pos: source?.range ? position(source.range[0]) : mapPos, path: path || undefined },
    );
    throw new Refusal();
  }
  const entries: YEntry[] = [];
  const seen = new Set<string>();
  for (const m of sources as YMap[])
    for (const entry of m.entries) {
      if (seen.has(entry.key)) continue;
      seen.add(entry.key);
      entries.push(entry);
    }
  return entries;
}
