import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Http2SessionManager } from "@connectrpc/connect-node";
import { GuardedSessionManager } from "@movement-detection/shared/security";
import { expect } from "chai";

/**
 * A GOAWAY on an idle connection, then a request before its socket has closed: connect-node's own
 * manager lets the connection's late error escape as an uncaught exception (connect-es #1768),
 * which would stop any process of ours whose peer restarts. Real HTTP/2 on both ends.
 */
describe("internal HTTP/2 connections after a GOAWAY (GuardedSessionManager)", () => {
  let server: http2.Http2Server;
  let url: string;
  const serverSessions: http2.ServerHttp2Session[] = [];

  before(async () => {
    server = http2.createServer();
    server.on("session", (session) => serverSessions.push(session));
    server.on("stream", (stream) => {
      stream.respond({ ":status": 200 });
      stream.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const session of serverSessions) session.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  type Manager = Pick<Http2SessionManager, "request">;

  /** One GET; its status and the connection it went over. */
  async function get(manager: Manager) {
    const stream = await manager.request("GET", "/", {}, {});
    const session = stream.session as http2.ClientHttp2Session;
    const status = await new Promise<number>((resolve) =>
      stream.on("response", (headers) => resolve(Number(headers[":status"]))),
    );
    stream.resume();
    await new Promise((resolve) => stream.on("close", resolve));
    return { status, session };
  }

  /** The uncaught exceptions raised while `scenario` runs and a little after (the late error). */
  async function uncaughtDuring(scenario: () => Promise<void>): Promise<unknown[]> {
    const uncaught: unknown[] = [];
    const mochaHandlers = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      await scenario();
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      process.off("uncaughtException", record);
      for (const handler of mochaHandlers) process.on("uncaughtException", handler);
    }
    return uncaught;
  }

  /** An idle connection gets GOAWAY; a request is made the moment it arrives. */
  async function goawayThenRequest(manager: Manager) {
    const first = await get(manager);
    expect(first.status).to.equal(200);
    const second = new Promise<Awaited<ReturnType<typeof get>>>((resolve, reject) => {
      first.session.once("goaway", () => setImmediate(() => get(manager).then(resolve, reject)));
    });
    serverSessions.at(-1)?.goaway(http2.constants.NGHTTP2_NO_ERROR);
    const after = await second;
    expect(after.status).to.equal(200);
    expect(after.session, "a new connection").to.not.equal(first.session);
  }

  it("connect-node's own manager throws the late error (why the guard exists)", async () => {
    const uncaught = await uncaughtDuring(() => goawayThenRequest(new Http2SessionManager(url)));
    expect(uncaught.map(String)).to.deep.equal([
      "ConnectError: [canceled] received GOAWAY without any open streams",
    ]);
  });

  it("the guarded manager answers on a new connection and throws nothing", async () => {
    const uncaught = await uncaughtDuring(() => goawayThenRequest(new GuardedSessionManager(url)));
    expect(uncaught).to.deep.equal([]);
  });
});
