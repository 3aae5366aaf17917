/**
 * The gateway's calls to detection (session RPCs) behind one name, as on Kubernetes with a
 * headless Service: real gRPC servers on three loopback addresses and one port, real clients;
 * only the name's resolution is injected.
 */
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { type Client, Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { DetectionService } from "@movement-detection/proto/detection/v1";
import { expect } from "chai";
import { createDetectionReplicas } from "../../gateway/routes/detection-replicas.js";

type DetectionClient = Client<typeof DetectionService>;

/** A detection replica answering GetStreamEndpoint with `label` as its stream port. */
async function replicaOn(host: string, port: number, label: number) {
  let calls = 0;
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(DetectionService, {
        getStreamEndpoint() {
          calls += 1;
          return { streamPort: label, maxMessageBytes: 65536 };
        },
      }),
  });
  const server: Http2Server = createServer(handler);
  const sessions: ServerHttp2Session[] = [];
  server.on("session", (session) => sessions.push(session));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls: () => calls,
    close() {
      for (const session of sessions) session.destroy();
      server.close();
    },
  };
}

const clientAt = (url: string): DetectionClient =>
  createClient(DetectionService, createGrpcTransport({ baseUrl: url }));

describe("gateway calls to detection replicas behind one name (a Kubernetes headless Service)", () => {
  it("spreads calls over every address, and follows the addresses when one is gone", async () => {
    const a = await replicaOn("127.0.0.2", 0, 2);
    const b = await replicaOn("127.0.0.3", a.port, 3);
    const c = await replicaOn("127.0.0.4", a.port, 4);
    let addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];
    let resolutions = 0;
    let clock = 0;
    const url = `http://detection.test:${a.port}`;
    try {
      const replicas = createDetectionReplicas([clientAt(url)], [url], {
        clientAt,
        resolve: async (host) => {
          expect(host).to.equal("detection.test");
          resolutions += 1;
          return addresses;
        },
        now: () => clock,
      });
      const ask = () => replicas.call((client) => client.getStreamEndpoint({}));
      const answered: number[] = [];
      for (let i = 0; i < 9; i += 1) answered.push((await ask()).streamPort);
      expect([a.calls(), b.calls(), c.calls()]).to.deep.equal([3, 3, 3]);
      expect(new Set(answered)).to.deep.equal(new Set([2, 3, 4]));
      expect(resolutions).to.equal(1);

      // A pod goes away: its calls go to the others at once, and the name is asked again.
      c.close();
      for (let i = 0; i < 6; i += 1) expect([2, 3]).to.include((await ask()).streamPort);
      expect(resolutions).to.be.greaterThan(1);
      addresses = ["127.0.0.2", "127.0.0.3"];
      clock += 10_000;
      const before = [a.calls(), b.calls()];
      for (let i = 0; i < 4; i += 1) await ask();
      expect([a.calls() - before[0], b.calls() - before[1]]).to.deep.equal([2, 2]);

      // A failed resolution keeps the addresses it had.
      const resolvedBefore = resolutions;
      const failing = createDetectionReplicas([clientAt(url)], [url], {
        clientAt,
        resolve: async () => {
          resolutions += 1;
          if (resolutions > resolvedBefore + 1) throw new Error("SERVFAIL");
          return ["127.0.0.2", "127.0.0.3"];
        },
        now: () => clock,
      });
      await failing.call((client) => client.getStreamEndpoint({}));
      clock += 10_000;
      const after = new Set<number>();
      for (let i = 0; i < 4; i += 1) {
        after.add((await failing.call((client) => client.getStreamEndpoint({}))).streamPort);
      }
      expect(after).to.deep.equal(new Set([2, 3]));
    } finally {
      a.close();
      b.close();
      c.close();
    }
  });

  it("an error a replica answered is the caller's: no other replica is asked", async () => {
    const url = "http://127.0.0.1:1";
    let asked = 0;
    const replicas = createDetectionReplicas([clientAt(url), clientAt(url)], [url, url]);
    const refused = await replicas
      .call(async () => {
        asked += 1;
        throw new ConnectError("no such session", Code.NotFound);
      })
      .catch((error: ConnectError) => error);
    expect(refused.code).to.equal(Code.NotFound);
    expect(asked).to.equal(1);
  });
});
