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
import { expect } from "chai";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";
import { createStreamReplicas } from "../../gateway/realtime/stream-replicas.js";
import { createLogger } from "../../services/shared/logging/logger.js";
import {
  type InternalIdentity,
  loadInternalIdentity,
} from "../../services/shared/security/internal-transport.js";
import type { Workload } from "../../services/shared/security/workloads.js";

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
