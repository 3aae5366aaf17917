import { mkdtemp, rm } from "node:fs/promises";
import {
  createServer as createHttp2Server,
  createSecureServer,
  type Http2Server,
  type ServerHttp2Session,
} from "node:http2";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@movement-detection/shared/logging";
import type { Workload } from "@movement-detection/shared/security";
import { type InternalIdentity, loadInternalIdentity } from "@movement-detection/shared/security";
import { expect } from "chai";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";
import { createStreamReplicas } from "../../gateway/realtime/stream-replicas.js";

const H2C = { tls: undefined, security: { workload: "gateway" } } as unknown as InternalIdentity;
const KEEPALIVE = { intervalMs: 100, timeoutMs: 200 };

/** A TCP relay in front of the replica whose open connections can be made to go silent. */
function relayTo(port: number): Promise<{ port: number; silence(): void; close(): void }> {
  const pairs: [Socket, Socket][] = [];
  const all: Socket[] = [];
  const relay: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    pairs.push([client, upstream]);
    all.push(client, upstream);
  });
  return new Promise((resolve) =>
    relay.listen(0, "127.0.0.1", () =>
      resolve({
        port: (relay.address() as AddressInfo).port,
        // A lost node: nothing passes either way any more, and nothing is closed.
        silence() {
          for (const [client, upstream] of pairs.splice(0)) {
            client.unpipe(upstream);
            upstream.unpipe(client);
            client.pause();
            upstream.pause();
          }
        },
        close() {
          relay.close();
          for (const socket of all) socket.destroy();
        },
      }),
    ),
  );
}

describe("gateway stream replicas (the shared HTTP/2 connection to a detection replica)", () => {
  let replica: Http2Server;
  let relay: Awaited<ReturnType<typeof relayTo>>;
  let connections = 0;
  const sessions: ServerHttp2Session[] = [];

  before(async () => {
    replica = createHttp2Server();
    replica.on("session", (session) => {
      connections += 1;
      sessions.push(session);
    });
    // An echo per stream: what the gateway writes comes back.
    replica.on("stream", (stream) => {
      stream.respond({ ":status": 200 });
      stream.pipe(stream);
    });
    await new Promise<void>((resolve) => replica.listen(0, "127.0.0.1", resolve));
    relay = await relayTo((replica.address() as AddressInfo).port);
  });

  after(() => {
    relay.close();
    for (const session of sessions) session.destroy();
    replica.close();
  });

  const replicas = () =>
    createStreamReplicas(
      [
        { getStreamEndpoint: async () => ({ streamPort: relay.port, maxMessageBytes: 1000 }) },
      ] as never,
      ["http://127.0.0.1:1"],
      createLogger({ service: "test", level: "silent" }),
      H2C,
      undefined,
      KEEPALIVE,
    );

  const echo = (stream: NodeJS.ReadWriteStream, text: string) =>
    new Promise<string>((resolve) => {
      stream.once("data", (chunk: Buffer) => resolve(chunk.toString()));
      stream.write(text);
    });

  it("carries streams on one connection, kept up by answered PINGs", async () => {
    const before = connections;
    const pool = replicas();
    const first = await pool.open({ ":method": "POST", ":path": "/a" });
    const second = await pool.open({ ":method": "POST", ":path": "/b" });
    expect(await echo(first.stream, "one")).to.equal("one");
    // Ten PING intervals later both streams still work, on the same connection.
    await new Promise((resolve) => setTimeout(resolve, KEEPALIVE.intervalMs * 10));
    expect(await echo(second.stream, "two")).to.equal("two");
    expect(first.stream.destroyed).to.equal(false);
    expect(connections - before).to.equal(1);
    pool.close();
    first.stream.close();
    second.stream.close();
  });

  it("ends a connection whose replica went silent; the next stream gets a new one", async () => {
    const pool = replicas();
    const upstream = await pool.open({ ":method": "POST", ":path": "/a" });
    expect(await echo(upstream.stream, "before")).to.equal("before");
    const closed = new Promise((resolve) => upstream.stream.once("close", resolve));
    upstream.stream.on("error", () => undefined);
    const silencedAt = performance.now();
    relay.silence();
    await closed;
    // Within one interval and one timeout (and a little scheduling).
    expect(performance.now() - silencedAt).to.be.below(
      KEEPALIVE.intervalMs + KEEPALIVE.timeoutMs + 250,
    );
    const again = await pool.open({ ":method": "POST", ":path": "/b" });
    expect(await echo(again.stream, "after")).to.equal("after");
    pool.close();
    again.stream.close();
  });

  describe("under mutual TLS", () => {
    let dir: string;
    let identities: Record<"gateway" | "detection", InternalIdentity>;
    let secureReplica: Http2Server;
    let secureRelay: Awaited<ReturnType<typeof relayTo>>;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "mds-stream-replicas-"));
      // Issued on the system clock, the one OpenSSL checks validity against (the any-date guard
      // moves only JavaScript's calendar; faketime moves both).
      const pki = await ensureLocalPki({
        dir,
        now: () => new Date(performance.timeOrigin + performance.now()),
      });
      const identity = (workload: Workload) =>
        loadInternalIdentity({
          transport: "mtls",
          workload,
          trustDomain: pki.trustDomain,
          tlsDir: pki.tlsDirOf(workload),
          reloadSeconds: 3600,
        });
      identities = { gateway: identity("gateway"), detection: identity("detection") };
      const serverOptions = identities.detection.tls?.serverOptions();
      secureReplica = createSecureServer({ ...serverOptions, ALPNProtocols: ["h2"] });
      secureReplica.on("stream", (stream) => {
        stream.respond({ ":status": 200 });
        stream.pipe(stream);
      });
      secureReplica.on("session", (session) => sessions.push(session));
      await new Promise<void>((resolve) => secureReplica.listen(0, "127.0.0.1", resolve));
      secureRelay = await relayTo((secureReplica.address() as AddressInfo).port);
    });

    after(async () => {
      secureRelay.close();
      secureReplica.close();
      identities.gateway.tls?.close();
      identities.detection.tls?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("resumes the TLS session when a lost connection is replaced", async () => {
      const handshakes: boolean[] = [];
      const pool = createStreamReplicas(
        [
          {
            getStreamEndpoint: async () => ({
              streamPort: secureRelay.port,
              maxMessageBytes: 1000,
            }),
          },
        ] as never,
        ["https://127.0.0.1:1"],
        createLogger({ service: "test", level: "silent" }),
        identities.gateway,
        (resumed) => handshakes.push(resumed),
        KEEPALIVE,
      );
      const first = await pool.open({ ":method": "POST", ":path": "/a" });
      expect(await echo(first.stream, "one")).to.equal("one");
      // The ticket comes after the handshake (TLS 1.3): give it a moment before losing the line.
      await new Promise((resolve) => setTimeout(resolve, 50));
      first.stream.on("error", () => undefined);
      const closed = new Promise((resolve) => first.stream.once("close", resolve));
      secureRelay.silence();
      await closed;
      const second = await pool.open({ ":method": "POST", ":path": "/b" });
      expect(await echo(second.stream, "two")).to.equal("two");
      expect(handshakes).to.deep.equal([false, true]);
      pool.close();
      second.stream.close();
    });
  });
});

describe("gateway stream replicas behind one name (a Kubernetes headless Service)", () => {
  /** An h2c echo replica on `host`:`port`, counting the streams it got. */
  async function replicaOn(host: string, port: number) {
    const server = createHttp2Server();
    const sessions: ServerHttp2Session[] = [];
    let streams = 0;
    server.on("session", (session) => sessions.push(session));
    server.on("stream", (stream) => {
      streams += 1;
      stream.respond({ ":status": 200 });
      stream.pipe(stream);
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    return {
      port: (server.address() as AddressInfo).port,
      streams: () => streams,
      close() {
        for (const session of sessions) session.destroy();
        server.close();
      },
    };
  }

  it("spreads streams over every address the name resolves to, and follows the addresses as they change", async () => {
    // Three pods: three loopback addresses, one port (as pods share the container port).
    const a = await replicaOn("127.0.0.2", 0);
    const b = await replicaOn("127.0.0.3", a.port);
    const c = await replicaOn("127.0.0.4", a.port);
    let addresses = ["127.0.0.2", "127.0.0.3"];
    let clock = 0;
    const pool = createStreamReplicas(
      [{ getStreamEndpoint: async () => ({ streamPort: a.port, maxMessageBytes: 1000 }) }] as never,
      ["http://detection.test:50054"],
      createLogger({ service: "test", level: "silent" }),
      H2C,
      undefined,
      KEEPALIVE,
      async (host) => {
        expect(host).to.equal("detection.test");
        return addresses;
      },
      () => clock,
    );
    const opened: Awaited<ReturnType<typeof pool.open>>[] = [];
    /** A stream, once its replica has it (an echo came back). */
    const openOne = async () => {
      const upstream = await pool.open({ ":method": "POST", ":path": "/s" });
      await new Promise<void>((resolve) => {
        upstream.stream.once("data", () => resolve());
        upstream.stream.write("x");
      });
      opened.push(upstream);
    };
    try {
      for (let i = 0; i < 8; i += 1) await openOne();
      expect([a.streams(), b.streams(), c.streams()]).to.deep.equal([4, 4, 0]);
      expect(new Set(opened.map((upstream) => upstream.replica))).to.deep.equal(
        new Set([
          "http://detection.test:50054 (127.0.0.2)",
          "http://detection.test:50054 (127.0.0.3)",
        ]),
      );
      // A pod replaced: the name now gives .3 and .4. Within 10 s nothing changes ...
      addresses = ["127.0.0.3", "127.0.0.4"];
      clock += 5000;
      await openOne();
      expect(a.streams() + b.streams()).to.equal(9);
      // ... after, new streams go to .3 and .4 only (.4 first: it has none).
      clock += 6000;
      for (let i = 0; i < 4; i += 1) await openOne();
      expect(a.streams()).to.be.at.most(5);
      expect(c.streams()).to.equal(4);
      const echoed = await new Promise<string>((resolve) => {
        const last = opened[opened.length - 1].stream;
        last.once("data", (chunk: Buffer) => resolve(chunk.toString()));
        last.write("still");
      });
      expect(echoed).to.equal("still");
    } finally {
      pool.close();
      for (const upstream of opened) upstream.stream.close();
      a.close();
      b.close();
      c.close();
    }
  });
});
