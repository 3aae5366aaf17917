/**
 * What a log record holds: the operations of one commit, each a BSON document, one after the
 * other. The engine writes them as it applies mutations; recovery reads them back.
 */
import type { Binary } from "bson";
import { BSON } from "bson";
import type { Doc } from "../bson-values.js";
import type { IndexSpec } from "./collection-index.js";
import { CorruptFileError } from "./record-file.js";

export type LogOp =
  | { o: "i"; ns: string; d: Doc }
  | { o: "u"; ns: string; d: Doc }
  | { o: "d"; ns: string; id: unknown }
  | { o: "cc"; db: string; name: string; opts: Doc; uuid: Binary }
  | { o: "dc"; ns: string }
  | { o: "ci"; ns: string; spec: IndexSpec }
  | { o: "di"; ns: string; name: string }
  | { o: "dd"; db: string };

/** One operation as it goes into a log record. */
export function encodeLogOp(op: LogOp): Uint8Array {
  return BSON.serialize(op);
}

/**
 * An insert's or update's operation around its document's BSON, already serialized (for the size
 * check: document-size.ts): the same bytes as `encodeLogOp({ o, ns, d })`, without serializing the
 * document again.
 */
export function encodeDocumentOp(o: "i" | "u", ns: string, doc: Uint8Array): Uint8Array {
  const nsBytes = Buffer.byteLength(ns, "utf8");
  // int32 length | "o": string | "ns": string | "d": embedded document | terminator
  const size = 4 + (1 + 2 + 4 + 2) + (1 + 3 + 4 + nsBytes + 1) + (1 + 2) + doc.length + 1;
  const out = Buffer.allocUnsafe(size);
  let at = out.writeInt32LE(size, 0);
  at = out.writeUInt8(0x02, at);
  at += out.write("o\0", at, "latin1");
  at = out.writeInt32LE(2, at);
  at += out.write(`${o}\0`, at, "latin1");
  at = out.writeUInt8(0x02, at);
  at += out.write("ns\0", at, "latin1");
  at = out.writeInt32LE(nsBytes + 1, at);
  at += out.write(ns, at, "utf8");
  at = out.writeUInt8(0x00, at);
  at = out.writeUInt8(0x03, at);
  at += out.write("d\0", at, "latin1");
  out.set(doc, at);
  out.writeUInt8(0x00, at + doc.length);
  return out;
}

/** Calls `fn` with each operation of a record, in order; a malformed one is a corrupt file. */
export function forEachLogOp(
  payload: Buffer,
  file: string,
  recordOffset: number,
  fn: (op: LogOp) => void,
): void {
  let offset = 0;
  while (offset < payload.length) {
    const size = payload.length - offset >= 4 ? payload.readInt32LE(offset) : 0;
    if (size < 5 || offset + size > payload.length) {
      throw new CorruptFileError(file, recordOffset, "malformed operation inside a log record");
    }
    // A copy: bson's Binary values are views of their input, and the payload is a view of
    // the reader's buffer.
    const op = BSON.deserialize(Buffer.from(payload.subarray(offset, offset + size))) as LogOp;
    offset += size;
    fn(op);
  }
}
