import { expect } from "chai";
import { clientCloseFrame } from "../../../gateway/realtime/frame-guard.js";
import { closeCodeLabel, FrameObserver } from "../../../gateway/realtime/frame-observer.js";

/** A server frame (unmasked), `fin` unset for a fragment. */
function serverFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const extended = payload.length > 65_535 ? 8 : payload.length > 125 ? 2 : 0;
  const header = Buffer.alloc(2 + extended);
  header[0] = (fin ? 0x80 : 0) | opcode;
  if (extended === 0) header[1] = payload.length;
  else if (extended === 2) {
    header[1] = 126;
    header.writeUInt16BE(payload.length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  return Buffer.concat([header, payload]);
}

function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}

function feed(observer: FrameObserver, bytes: Buffer, chunkSize: number): FrameObserver {
  for (let i = 0; i < bytes.length; i += chunkSize) observer.push(bytes.subarray(i, i + chunkSize));
  return observer;
}

describe("gateway/realtime FrameObserver (stream metrics)", () => {
  const RESPONSE = Buffer.from(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
  );

  it("counts whole messages and bytes after the 101, and reads the close code, whatever the chunking", () => {
    const stream = Buffer.concat([
      RESPONSE,
      serverFrame(1, Buffer.alloc(10, 0x61)),
      serverFrame(1, Buffer.alloc(300, 0x61), false), // a fragmented message counts once
      serverFrame(0, Buffer.alloc(70_000, 0x61)),
      serverFrame(9, Buffer.alloc(4)), // a ping is not a message
      serverFrame(2, Buffer.alloc(2)),
      serverFrame(8, closePayload(4409, "replaced")),
    ]);
    for (const chunkSize of [1, 2, 3, 7, 64, 1000, stream.length]) {
      const observer = feed(new FrameObserver(true), stream, chunkSize);
      expect(observer.messages, `chunks of ${chunkSize}`).to.equal(3);
      expect(observer.bytes).to.equal(stream.length);
      expect(observer.closeCode, `chunks of ${chunkSize}`).to.equal(4409);
    }
  });

  it("unmasks a client's close code; a close without a code is 1005", () => {
    for (const chunkSize of [1, 3, 100]) {
      expect(
        feed(new FrameObserver(false), clientCloseFrame(1000, "bye"), chunkSize).closeCode,
      ).to.equal(1000);
    }
    expect(
      feed(new FrameObserver(true), Buffer.concat([RESPONSE, serverFrame(8, Buffer.alloc(0))]), 5)
        .closeCode,
    ).to.equal(1005);
  });

  it("reads nothing as frames after a refusal (not a 101), and labels close codes within a bounded set", () => {
    const refusal = Buffer.from("HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n\x81\x7e");
    const observer = feed(new FrameObserver(true), refusal, 4);
    expect(observer.messages).to.equal(0);
    expect(observer.closeCode).to.equal(undefined);
    expect(closeCodeLabel(undefined)).to.equal("none");
    expect(closeCodeLabel(4429)).to.equal("4429");
    expect(closeCodeLabel(4999)).to.equal("other");
    expect(closeCodeLabel(1000)).to.equal("1000");
  });
});
