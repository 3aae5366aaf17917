/**
 * MongoDB wire protocol messages: OP_MSG (all commands) and the legacy OP_QUERY / OP_REPLY
 * pair that drivers still use for the first `ismaster` of every connection.
 * https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/
 */
import { BSON } from "bson";
import type { Doc } from "../bson-values.js";
import { decodeDocument } from "./decode-document.js";

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const FLAG_CHECKSUM_PRESENT = 1;
const FLAG_MORE_TO_COME = 2;
const HEADER_BYTES = 16;
export const MAX_MESSAGE_BYTES = 48_000_000;

export interface MessageHeader {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type IncomingMessage =
  | { kind: "msg"; header: MessageHeader; body: Doc; moreToCome: boolean }
  | { kind: "query"; header: MessageHeader; collection: string; query: Doc }
  | { kind: "unsupported"; header: MessageHeader };

export class ProtocolError extends Error {}

export function readHeader(buf: Buffer, offset = 0): MessageHeader {
  return {
    length: buf.readInt32LE(offset),
    requestId: buf.readInt32LE(offset + 4),
    responseTo: buf.readInt32LE(offset + 8),
    opCode: buf.readInt32LE(offset + 12),
  };
}

export function parseMessage(buf: Buffer): IncomingMessage {
  const header = readHeader(buf);
  if (header.opCode === OP_MSG) return parseOpMsg(buf, header);
  if (header.opCode === OP_QUERY) return parseOpQuery(buf, header);
  return { kind: "unsupported", header };
}

function readDoc(buf: Buffer, offset: number): [Doc, number] {
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > buf.length)
    throw new ProtocolError("invalid BSON document length");
  return [decodeDocument(buf.subarray(offset, offset + size)), offset + size];
}

function parseOpMsg(buf: Buffer, header: MessageHeader): IncomingMessage {
  const flags = buf.readUInt32LE(HEADER_BYTES);
  const end = flags & FLAG_CHECKSUM_PRESENT ? buf.length - 4 : buf.length;
  let offset = HEADER_BYTES + 4;
  let body: Doc | undefined;
  const sequences: Array<[string, Doc[]]> = [];
  while (offset < end) {
    const kind = buf.readUInt8(offset++);
    if (kind === 0) {
      [body, offset] = readDoc(buf, offset);
    } else if (kind === 1) {
      const size = buf.readInt32LE(offset);
      const sectionEnd = offset + size;
      let cursor = offset + 4;
      const nul = buf.indexOf(0, cursor);
      const identifier = buf.toString("utf8", cursor, nul);
      cursor = nul + 1;
      const docs: Doc[] = [];
      while (cursor < sectionEnd) {
        let doc: Doc;
        [doc, cursor] = readDoc(buf, cursor);
        docs.push(doc);
      }
      sequences.push([identifier, docs]);
      offset = sectionEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError("OP_MSG without a body section");
  for (const [identifier, docs] of sequences) body[identifier] = docs;
  return { kind: "msg", header, body, moreToCome: (flags & FLAG_MORE_TO_COME) !== 0 };
}

function parseOpQuery(buf: Buffer, header: MessageHeader): IncomingMessage {
  let offset = HEADER_BYTES + 4;
  const nul = buf.indexOf(0, offset);
  const collection = buf.toString("utf8", offset, nul);
  offset = nul + 1 + 8; // numberToSkip, numberToReturn
  const [query] = readDoc(buf, offset);
  return { kind: "query", header, collection, query };
}

const SERIALIZE_OPTIONS = { ignoreUndefined: true, checkKeys: false };

export function encodeOpMsg(requestId: number, responseTo: number, body: Doc): Buffer {
  const payload = BSON.serialize(body, SERIALIZE_OPTIONS);
  const out = Buffer.allocUnsafe(HEADER_BYTES + 4 + 1 + payload.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(OP_MSG, 12);
  out.writeUInt32LE(0, 16);
  out.writeUInt8(0, 20);
  out.set(payload, 21);
  return out;
}

export function encodeOpReply(requestId: number, responseTo: number, doc: Doc): Buffer {
  const payload = BSON.serialize(doc, SERIALIZE_OPTIONS);
  const out = Buffer.allocUnsafe(HEADER_BYTES + 20 + payload.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(OP_REPLY, 12);
  out.writeInt32LE(0, 16); // responseFlags
  out.writeBigInt64LE(0n, 20); // cursorID
  out.writeInt32LE(0, 28); // startingFrom
  out.writeInt32LE(1, 32); // numberReturned
  out.set(payload, 36);
  return out;
}
