import { expect } from "chai";
import { WebSocket, WebSocketServer } from "ws";
import {
  clientCloseFrame,
  InboundFrameGuard,
  MAX_MESSAGE_FRAGMENTS,
} from "../../../gateway/realtime/frame-guard.js";

/** A client frame as a browser would send it (masked), `fin` unset for a fragment. */
function frame(opcode: number, payloadLength: number, fin = true): Buffer {
  const extended = payloadLength > 65_535 ? 8 : payloadLength > 125 ? 2 : 0;
  const header = Buffer.alloc(2 + extended + 4);
  header[0] = (fin ? 0x80 : 0) | opcode;
  if (extended === 0) header[1] = 0x80 | payloadLength;
  else if (extended === 2) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(payloadLength, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(payloadLength), 2);
  }
  return Buffer.concat([header, Buffer.alloc(payloadLength, 0x61)]);
}

describe("gateway/realtime InboundFrameGuard", () => {
  it("forwards frames up to the limit untouched, whatever the chunking", () => {
    const stream = Buffer.concat([
      frame(1, 10),
      frame(1, 300),
      frame(2, 1000),
      frame(9, 4),
      frame(1, 1024),
    ]);
    for (const chunkSize of [1, 2, 3, 7, 64, stream.length]) {
      const guard = new InboundFrameGuard(1024);
      const out: Buffer[] = [];
      for (let i = 0; i < stream.length; i += chunkSize) {
        const result = guard.push(stream.subarray(i, i + chunkSize));
        expect(result.refusal).to.equal(undefined);
        out.push(result.forward);
      }
      expect(Buffer.concat(out).equals(stream), `chunks of ${chunkSize}`).to.equal(true);
    }
  });

  it("stops before the header of a message above the limit", () => {
    const guard = new InboundFrameGuard(1024);
    const small = frame(1, 100);
    const result = guard.push(Buffer.concat([small, frame(1, 1025)]));
    expect(result.refusal?.closeCode).to.equal(1009);
    expect(result.forward.equals(small)).to.equal(true);
  });

  it("adds up fragments of one message, and ignores control frames between them", () => {
    const guard = new InboundFrameGuard(1000);
    expect(guard.push(frame(1, 600, false)).refusal).to.equal(undefined);
    expect(guard.push(frame(9, 10)).refusal).to.equal(undefined);
    const result = guard.push(frame(0, 600, true));
    expect(result.refusal?.closeCode).to.equal(1009);
    expect(result.forward.length).to.equal(0);
    // A new message starts the count again.
    const fresh = new InboundFrameGuard(1000);
    fresh.push(frame(1, 600, true));
    expect(fresh.push(frame(1, 600, true)).refusal).to.equal(undefined);
  });

  it("takes a message in MAX_MESSAGE_FRAGMENTS frames and refuses one more with 1008 and a reason", () => {
    const fragments = (count: number) =>
      Buffer.concat([
        frame(1, 1, false),
        ...Array.from({ length: count - 2 }, () => frame(0, 1, false)),
        frame(0, 1, true),
      ]);
    const atTheLimit = new InboundFrameGuard(65_536);
    const whole = fragments(MAX_MESSAGE_FRAGMENTS);
    const passed = atTheLimit.push(whole);
    expect(passed.refusal).to.equal(undefined);
    expect(passed.forward.length).to.equal(whole.length);
    // The count starts again with the next message.
    expect(atTheLimit.push(fragments(MAX_MESSAGE_FRAGMENTS)).refusal).to.equal(undefined);

    const beyond = new InboundFrameGuard(65_536);
    const refused = beyond.push(fragments(MAX_MESSAGE_FRAGMENTS + 1));
    expect(refused.refusal).to.deep.equal({
      closeCode: 1008,
      reason: `message in more than ${MAX_MESSAGE_FRAGMENTS} fragments`,
    });
    // The first MAX_MESSAGE_FRAGMENTS frames (as many bytes as the whole message above), nothing
    // of the one past the limit.
    expect(refused.forward.length).to.equal(whole.length);
  });

  it("sees 64-bit lengths", () => {
    const guard = new InboundFrameGuard(65_536);
    const header = frame(2, 70_000).subarray(0, 14);
    expect(guard.push(header).refusal?.closeCode).to.equal(1009);
  });

  it("builds a masked close frame a ws server understands", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    const closed = new Promise<number>((resolve) => {
      server.once("connection", (ws) => ws.once("close", (code) => resolve(code)));
    });
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    await new Promise((resolve) => client.once("open", resolve));
    const socket = (client as unknown as { _socket: { write(data: Buffer): void } })._socket;
    socket.write(clientCloseFrame(1009, "message too big"));
    expect(await closed).to.equal(1009);
    client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
});
