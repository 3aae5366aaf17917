/**
 * Snapshots: the whole committed state in one file, written to a temporary name, fsynced
 * and renamed into place, so a snapshot file is either complete or absent. Any damage in
 * a snapshot is reported as corruption (it is never silently skipped).
 */
import fs from "node:fs";
import path from "node:path";
import { type Binary, BSON } from "bson";
import type { Doc } from "../bson-values.js";
import type { IndexSpec } from "./collection-index.js";
import { CorruptFileError, encodeRecord, scanRecords } from "./record-file.js";

export const SNAPSHOT_MAGIC = "EMSNP001";
const DOCS_PER_RECORD = 1000;

export interface SnapshotCollection {
  db: string;
  name: string;
  options: Doc;
  uuid: Binary;
  indexes: IndexSpec[];
  docs: Doc[];
}

export interface SnapshotContent {
  generation: number;
  collections: SnapshotCollection[];
}

export function writeSnapshot(file: string, content: SnapshotContent): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    const chunks: Buffer[] = [Buffer.from(SNAPSHOT_MAGIC, "latin1")];
    let pending = chunks[0].length;
    const flush = (): void => {
      fs.writeSync(fd, Buffer.concat(chunks));
      chunks.length = 0;
      pending = 0;
    };
    const push = (doc: Doc): void => {
      const record = encodeRecord(BSON.serialize(doc));
      chunks.push(record);
      pending += record.length;
      if (pending > 4 * 1024 * 1024) flush();
    };
    push({ t: "meta", generation: content.generation, createdAt: new Date() });
    let total = 0;
    for (const c of content.collections) {
      push({
        t: "coll",
        db: c.db,
        name: c.name,
        options: c.options,
        uuid: c.uuid,
        indexes: c.indexes,
      });
      for (let i = 0; i < c.docs.length; i += DOCS_PER_RECORD) {
        push({ t: "docs", ns: `${c.db}.${c.name}`, docs: c.docs.slice(i, i + DOCS_PER_RECORD) });
      }
      total += c.docs.length;
    }
    push({ t: "end", collections: content.collections.length, docs: total });
    flush();
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(path.dirname(file));
}

export function syncDir(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function readSnapshot(file: string): SnapshotContent {
  const scan = scanRecords(file, fs.readFileSync(file), SNAPSHOT_MAGIC);
  if (scan.tornTailAt !== undefined) {
    throw new CorruptFileError(file, scan.tornTailAt, "snapshot is truncated");
  }
  const records = scan.records.map((r) => BSON.deserialize(r, { promoteLongs: true }));
  const meta = records[0];
  const end = records[records.length - 1];
  if (meta?.t !== "meta" || end?.t !== "end") {
    throw new CorruptFileError(file, 0, "snapshot lacks its meta or end record");
  }
  const collections: SnapshotCollection[] = [];
  const byNs = new Map<string, SnapshotCollection>();
  for (const record of records.slice(1, -1)) {
    if (record.t === "coll") {
      const c: SnapshotCollection = {
        db: record.db,
        name: record.name,
        options: record.options ?? {},
        uuid: record.uuid,
        indexes: record.indexes ?? [],
        docs: [],
      };
      collections.push(c);
      byNs.set(`${c.db}.${c.name}`, c);
    } else if (record.t === "docs") {
      const c = byNs.get(record.ns);
      if (!c) throw new CorruptFileError(file, 0, `documents for unknown collection ${record.ns}`);
      for (const doc of record.docs as Doc[]) c.docs.push(doc);
    }
  }
  const total = collections.reduce((n, c) => n + c.docs.length, 0);
  if (end.collections !== collections.length || end.docs !== total) {
    throw new CorruptFileError(file, 0, "snapshot record counts do not match its end record");
  }
  return { generation: meta.generation, collections };
}
