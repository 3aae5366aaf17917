/**
 * What grew between two heap snapshots of one process, by kind of object (run on demand):
 *
 *   node --import tsx bench/support/heap-snapshot-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--per N] [--top 40]
 *
 * Objects are grouped by their node type and constructor (or, for strings, code and arrays, the
 * type alone); each row is the growth of their count and of their own size (shallow: what the
 * object itself takes, not what it points at), divided by `--per` (the sessions added between the
 * snapshots), largest first. Array-buffer data lives outside the heap and is reported by the
 * snapshot as the size of each `native` backing-store node.
 */

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { readCommandLine } from "./command-line.js";

interface SnapshotFile {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: string[];
      readonly node_types: [string[], ...unknown[]];
    };
  };
  readonly nodes: number[];
  readonly strings: string[];
}

interface Group {
  count: number;
  size: number;
}

/** Types whose names are contents, not constructors: grouped by type alone. */
const GROUPED_BY_TYPE = new Set([
  "string",
  "concatenated string",
  "sliced string",
  "code",
  "number",
]);

function groups(path: string): Map<string, Group> {
  const file = JSON.parse(readFileSync(path, "utf8")) as SnapshotFile;
  const fields = file.snapshot.meta.node_fields;
  const types = file.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const result = new Map<string, Group>();
  for (let i = 0; i < file.nodes.length; i += width) {
    const type = types[file.nodes[i + typeAt]];
    const key = GROUPED_BY_TYPE.has(type)
      ? `(${type})`
      : `${type}: ${file.strings[file.nodes[i + nameAt]]}`;
    const group = result.get(key) ?? { count: 0, size: 0 };
    group.count++;
    group.size += file.nodes[i + sizeAt];
    result.set(key, group);
  }
  return result;
}

const USAGE = `usage: node --import tsx bench/support/heap-snapshot-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [options]

  --per N    divide the growth by N (the sessions added between the two snapshots; 1)
  --top K    rows to print, largest growth first (40)
  --help     this text
`;

const options = readCommandLine("heap-snapshot-diff", USAGE, (help) => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      help: { type: "boolean", default: false },
      per: { type: "string", default: "1" },
      top: { type: "string", default: "40" },
    },
  });
  if (values.help) help();
  if (positionals.length !== 2) throw new Error("give two heap snapshots: BEFORE and AFTER");
  const whole = (text: string, name: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} must be a whole number, 1 or more`);
    return value;
  };
  const per = whole(values.per, "--per");
  const top = whole(values.top, "--top");
  return { before: readSnapshot(positionals[0]), after: readSnapshot(positionals[1]), per, top };
});

/** A snapshot's groups, or the reason it cannot be read as one (a refusal, not a stack trace). */
function readSnapshot(path: string): Map<string, Group> {
  try {
    return groups(path);
  } catch (error) {
    throw new Error(`cannot read ${path} as a heap snapshot: ${(error as Error).message}`);
  }
}

const { before, after, per } = options;
const none: Group = { count: 0, size: 0 };
// Every kind in either snapshot: one that disappeared is a negative growth, counted in the total.
const rows = [...new Set([...before.keys(), ...after.keys()])]
  .map((key) => {
    const old = before.get(key) ?? none;
    const now = after.get(key) ?? none;
    return { key, count: (now.count - old.count) / per, size: (now.size - old.size) / per };
  })
  .sort((a, b) => b.size - a.size);
const total = rows.reduce((sum, row) => sum + row.size, 0);
process.stdout.write(
  `growth${per === 1 ? "" : `, divided by ${per}`}: ${(total / 1024).toFixed(2)} KB\n`,
);
process.stdout.write("bytes\tcount\tkind\n");
for (const row of rows.slice(0, options.top))
  process.stdout.write(`${row.size.toFixed(0)}\t${row.count.toFixed(2)}\t${row.key}\n`);
