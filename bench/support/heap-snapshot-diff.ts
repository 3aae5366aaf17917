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

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { per: { type: "string", default: "1" }, top: { type: "string", default: "40" } },
});
if (positionals.length !== 2) {
  process.stderr.write("usage: heap-snapshot-diff.ts BEFORE AFTER [--per N] [--top K]\n");
  process.exit(2);
}
const per = Number(values.per);
const before = groups(positionals[0]);
const after = groups(positionals[1]);
const rows = [...after.entries()]
  .map(([key, group]) => {
    const old = before.get(key) ?? { count: 0, size: 0 };
    return { key, count: (group.count - old.count) / per, size: (group.size - old.size) / per };
  })
  .sort((a, b) => b.size - a.size);
const total = rows.reduce((sum, row) => sum + row.size, 0);
process.stdout.write(
  `growth per ${per === 1 ? "snapshot" : "unit"}: ${(total / 1024).toFixed(2)} KB\n`,
);
process.stdout.write("bytes\tcount\tkind\n");
for (const row of rows.slice(0, Number(values.top)))
  process.stdout.write(`${row.size.toFixed(0)}\t${row.count.toFixed(2)}\t${row.key}\n`);
