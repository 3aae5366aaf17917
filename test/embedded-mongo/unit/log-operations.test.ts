import { BSON, Long, ObjectId } from "bson";
import { expect } from "chai";
import {
  encodeDocumentOp,
  encodeLogOp,
  forEachLogOp,
  type LogOp,
} from "../../../services/embedded-mongo/storage/log-operations.js";

describe("embedded-mongo log operations", () => {
  const documents = [
    { _id: "ses_1" },
    {
      _id: new ObjectId("6566d4f5a1b2c3d4e5f60718"),
      checkpoint: { engine: "x".repeat(20_000), recent_events: [{ event_seq: 1, message: "é" }] },
      at: new Date(1_700_000_000_000),
      n: Long.fromNumber(7),
      nothing: null,
    },
  ];
  const namespaces = ["detection.sessions", "d.c", "données.séances"];

  it("wraps a serialized document into the same bytes as the whole operation serialized", () => {
    for (const o of ["i", "u"] as const) {
      for (const ns of namespaces) {
        for (const d of documents) {
          const whole = encodeLogOp({ o, ns, d });
          const wrapped = encodeDocumentOp(o, ns, BSON.serialize(d));
          expect(Buffer.from(wrapped).equals(Buffer.from(whole)), `${o} ${ns}`).to.equal(true);
        }
      }
    }
  });

  it("reads a wrapped operation back as recovery reads the log", () => {
    const d = documents[1];
    const payload = Buffer.concat([
      encodeDocumentOp("u", "detection.sessions", BSON.serialize(d)),
      encodeLogOp({ o: "d", ns: "detection.sessions", id: "ses_1" }),
    ]);
    const ops: LogOp[] = [];
    forEachLogOp(payload, "log", 0, (op) => ops.push(op));
    expect(ops).to.deep.equal([
      { o: "u", ns: "detection.sessions", d: BSON.deserialize(BSON.serialize(d)) },
      { o: "d", ns: "detection.sessions", id: "ses_1" },
    ]);
  });
});
