import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect as connectHttp2,
  type OutgoingHttpHeaders,
} from "node:http2";
import { connect, type Socket } from "node:net";
import { connect as connectTls, type SecureContext, type TLSSocket } from "node:tls";
import type { Client } from "@connectrpc/connect";
import type { DetectionService } from "@movement-detection/proto/detection/v1";
import type { Logger } from "@movement-detection/shared/logging";
import { openConnectionWindow, TUNNEL_SESSION_OPTIONS } from "@movement-detection/shared/realtime";
import {
  ASSERTED_WORKLOAD_HEADER,
  type InternalIdentity,
} from "@movement-detection/shared/security";
import {
  hostOf,
  isName,
  type ResolveAddresses,
  refreshName,
  resolveWithDns,
} from "./name-resolution.js";

type DetectionClient = Client<typeof DetectionService>;

/** Where a configured detection URL's stream listeners are (the same port on every address). */
interface StreamEndpoint {
  readonly port: number;
  readonly maxMessageBytes: number;
}

/**
 * One configured URL (DETECTION_SERVICE_URLS): a replica, or a name that resolves to several
 * (a Kubernetes headless Service: one address per pod). Each address is a member of its own.
 */
interface ConfiguredUrl {
  readonly url: string;
  readonly host: string;
  readonly client: DetectionClient;
  endpoint: Promise<StreamEndpoint> | undefined;
  /** The addresses the name resolved to last, each a member; by address. */
  readonly members: Map<string, Replica>;
  /** When the name was last resolved (-Infinity: resolve before the next stream). */
  resolvedAt: number;
  resolving: Promise<void> | undefined;
}

/** One address to open streams to: its shared connection and its open streams. */
interface Replica {
  /** For logs: the URL, and the address when the name has several. */
  label: string;
  readonly configured: ConfiguredUrl;
  readonly address: string;
  /** The HTTP/2 connection every stream to this replica rides on, once opened. */
  connection: Promise<ClientHttp2Session> | undefined;
  open: number;
  /** The replica's last TLS session ticket, and the client context it was issued to. */
  ticket: { readonly session: Buffer; readonly context: SecureContext } | undefined;
  /** No longer among the name's addresses: no new stream; dropped once its streams end. */
  gone: boolean;
}

export interface StreamUpstream {
  /** The tunnel: the websocket connection's bytes both ways, after the upgrade request. */
  readonly stream: ClientHttp2Stream;
  readonly replica: string;
  readonly maxMessageBytes: number;
  /** Call once the proxied stream ended (balancing counts open streams per replica). */
  done(): void;
}

/**
 * The detection replicas' stream listeners, for new websocket streams: the replica with the
 * fewest open streams first (ties in turn), the next one if it cannot be reached. Each
 * replica's stream port is asked once over gRPC (GetStreamEndpoint) and asked again after a
 * failed connection (a restarted replica may listen elsewhere).
 *
 * A URL whose host is a name (not an IP address, not localhost) is resolved, every 10 s and after
 * a failed connection, and each address it resolves to is a replica of its own: behind a
 * Kubernetes headless Service the streams spread over every pod, as a ClusterIP's one shared
 * connection would not (kube-proxy balances connections, not the streams inside one). The stream
 * port is asked once per URL (every pod listens on the same).
 *
 * All streams to one replica share one HTTP/2 connection (services/shared/realtime/
 * stream-tunnel.ts), opened with the first stream and replaced when it closes, fails or is
 * told to go away (the replica is shutting down: its open streams finish on it). Under mtls the
 * gateway presents its certificate and accepts only a detection certificate in return, and offers
 * the replica the last session ticket it issued, so that a new connection after a lost one resumes
 * the TLS session instead of a full handshake; a replica that no longer accepts the ticket does a
 * full handshake, whose server identity is checked as always.
 */
export interface StreamReplicas {
  /** A tunnel for one client websocket; `headers` are the upgrade request's (stream-tunnel.ts). */
  open(headers: OutgoingHttpHeaders): Promise<StreamUpstream>;
  /** Closes the shared connections (their open streams finish first). */
  close(): void;
}

const CONNECT_TIMEOUT_MS = 2000;
/**
 * A replica that vanished without closing its connection (its node lost, a partition) would
 * leave every stream on it, and every new one, waiting: a PING unanswered this long ends the
 * connection, its websockets are cut (their clients resume elsewhere) and the next stream opens
 * a new one, or goes to another replica.
 */
const KEEPALIVE_DEFAULTS = { intervalMs: 5000, timeoutMs: 3000 };
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

export function createStreamReplicas(
  clients: readonly DetectionClient[],
  urls: readonly string[],
  logger: Logger,
  identity: InternalIdentity,
  onHandshake: (resumed: boolean) => void = () => undefined,
  keepalive: { readonly intervalMs: number; readonly timeoutMs: number } = KEEPALIVE_DEFAULTS,
  resolve: ResolveAddresses = resolveWithDns,
  now: () => number = () => performance.now(),
): StreamReplicas {
  const tls = identity.tls?.clientOptions("detection");
  const asserted: OutgoingHttpHeaders = tls
    ? {}
    : { [ASSERTED_WORKLOAD_HEADER]: identity.security.workload };
  const configured: ConfiguredUrl[] = clients.map((client, index) => {
    const url = urls[index] ?? `replica-${index}`;
    const host = hostOf(url);
    const entry: ConfiguredUrl = {
      url,
      host,
      client,
      endpoint: undefined,
      members: new Map(),
      resolvedAt: Number.NEGATIVE_INFINITY,
      resolving: undefined,
    };
    // An address (or localhost) is its one member for good; a name is resolved when needed.
    if (!isName(host)) entry.members.set(host, member(entry, host));
    return entry;
  });
  let turn = 0;
  let closed = false;

  function member(entry: ConfiguredUrl, address: string): Replica {
    return {
      label: entry.url,
      configured: entry,
      address,
      connection: undefined,
      open: 0,
      ticket: undefined,
      gone: false,
    };
  }

  /** Resolves a name again when due: new addresses join, vanished ones stop taking streams. */
  const refresh = (entry: ConfiguredUrl): Promise<void> =>
    (isName(entry.host) &&
      refreshName(entry, {
        host: entry.host,
        resolve,
        now,
        logger,
        hasAddresses: () => entry.members.size > 0,
        apply: (addresses) => {
          const current = new Set(addresses);
          for (const address of current) {
            if (!entry.members.has(address)) entry.members.set(address, member(entry, address));
          }
          for (const [address, replica] of entry.members) {
            replica.gone = !current.has(address);
            if (replica.gone && replica.open === 0) entry.members.delete(address);
          }
          const several = entry.members.size > 1;
          for (const replica of entry.members.values()) {
            replica.label = several ? `${entry.url} (${replica.address})` : entry.url;
          }
        },
      })) ||
    Promise.resolve();

  const endpointOf = (entry: ConfiguredUrl): Promise<StreamEndpoint> => {
    entry.endpoint ??= entry.client.getStreamEndpoint({}, { timeoutMs: CONNECT_TIMEOUT_MS }).then(
      (answer) => ({
        port: answer.streamPort,
        maxMessageBytes: answer.maxMessageBytes || DEFAULT_MAX_MESSAGE_BYTES,
      }),
      (error) => {
        entry.endpoint = undefined;
        throw error;
      },
    );
    return entry.endpoint;
  };

  /** The ticket to offer (if it was issued to the client context in use) and where to keep the next. */
  const resumption = (replica: Replica) => {
    const context = tls?.secureContext;
    const ticket = replica.ticket;
    return {
      session: ticket && ticket.context === context ? ticket.session : undefined,
      onSession: (session: Buffer) => {
        if (context) replica.ticket = { session, context };
      },
    };
  };

  const connectionOf = (
    replica: Replica,
    endpoint: StreamEndpoint,
  ): Promise<ClientHttp2Session> => {
    if (replica.connection) return replica.connection;
    const connection = openConnection(
      replica.address,
      endpoint.port,
      tls && { ...tls, ...resumption(replica) },
      onHandshake,
    ).then(
      (session) => {
        const forget = () => {
          if (replica.connection === connection) replica.connection = undefined;
        };
        session.once("close", forget);
        session.once("goaway", forget);
        keepAlive(session, keepalive.intervalMs, keepalive.timeoutMs);
        session.on("error", (error) =>
          logger.debug({ replica: replica.label, err: error.message }, "stream connection failed"),
        );
        return session;
      },
      (error) => {
        if (replica.connection === connection) replica.connection = undefined;
        // Ask the port again, and the name's addresses (a pod may be gone).
        replica.configured.endpoint = undefined;
        replica.configured.resolvedAt = Number.NEGATIVE_INFINITY;
        replica.ticket = undefined;
        throw error;
      },
    );
    replica.connection = connection;
    return connection;
  };

  const tryReplica = async (
    replica: Replica,
    headers: OutgoingHttpHeaders,
  ): Promise<StreamUpstream> => {
    const endpoint = await endpointOf(replica.configured);
    const connection = connectionOf(replica, endpoint);
    const session = await connection;
    // Closed or told to go away since it was handed out: the next try opens a new one.
    if (replica.connection !== connection || session.closed || session.destroyed) {
      if (replica.connection === connection) replica.connection = undefined;
      throw new Error("the connection to the replica closed");
    }
    // The headers were checked (stream-tunnel.ts): nothing here can end the shared connection.
    const stream = session.request({ ...headers, ...asserted }, { endStream: false });
    replica.open += 1;
    let counted = true;
    return {
      stream,
      replica: replica.label,
      maxMessageBytes: endpoint.maxMessageBytes,
      done() {
        if (counted) replica.open -= 1;
        counted = false;
        if (replica.gone && replica.open === 0) {
          replica.configured.members.delete(replica.address);
          void replica.connection?.then(
            (session) => session.close(),
            () => undefined,
          );
        }
      },
    };
  };

  return {
    async open(headers) {
      if (closed) throw new Error("the gateway is shutting down");
      await Promise.all(configured.map(refresh));
      const replicas = configured.flatMap((entry) =>
        [...entry.members.values()].filter((replica) => !replica.gone),
      );
      const start = turn % Math.max(replicas.length, 1);
      turn = (start + 1) % Math.max(replicas.length, 1);
      const order = replicas
        .map((replica, index) => ({
          replica,
          rank: (index - start + replicas.length) % replicas.length,
        }))
        .sort((a, b) => a.replica.open - b.replica.open || a.rank - b.rank)
        .map((entry) => entry.replica);
      let lastError: unknown = new Error("no detection replica configured");
      // Each replica twice: the second try re-asks a restarted replica for its port.
      for (const replica of [...order, ...order]) {
        try {
          return await tryReplica(replica, headers);
        } catch (error) {
          lastError = error;
          logger.debug(
            { replica: replica.label, err: (error as Error).message },
            "stream replica unreachable",
          );
        }
      }
      throw lastError;
    },
    close() {
      closed = true;
      for (const replica of configured.flatMap((entry) => [...entry.members.values()])) {
        void replica.connection?.then(
          (session) => session.close(),
          () => undefined,
        );
      }
    },
  };
}

/** PINGs the connection every `intervalMs`; one unanswered for `timeoutMs` destroys it. */
function keepAlive(session: ClientHttp2Session, intervalMs: number, timeoutMs: number): void {
  let waiting: NodeJS.Timeout | undefined;
  const interval = setInterval(() => {
    if (waiting || session.closed || session.destroyed) return;
    waiting = setTimeout(
      () => session.destroy(new Error(`no answer to a PING within ${timeoutMs} ms`)),
      timeoutMs,
    ).unref();
    session.ping((error) => {
      clearTimeout(waiting);
      waiting = undefined;
      // A PING cancelled by the connection's own end is no news.
      if (error && !session.closed && !session.destroyed) session.destroy(error);
    });
  }, intervalMs);
  interval.unref();
  session.once("close", () => {
    clearInterval(interval);
    clearTimeout(waiting);
  });
}

type UpstreamTls = ReturnType<NonNullable<InternalIdentity["tls"]>["clientOptions"]> & {
  readonly session: Buffer | undefined;
  readonly onSession: (session: Buffer) => void;
};

function openConnection(
  host: string,
  port: number,
  tls: UpstreamTls | undefined,
  onHandshake: (resumed: boolean) => void,
): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    let socket: Socket;
    const createConnection = () => {
      if (tls) {
        const { onSession, ...options } = tls;
        const secure = connectTls({ host, port, ...options, ALPNProtocols: ["h2"] });
        // TLS 1.3 tickets come after the handshake, possibly several: the last one is kept.
        secure.on("session", onSession);
        socket = secure;
      } else {
        socket = connect({ host, port });
      }
      return socket.setNoDelay(true);
    };
    const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    const authority = `${tls ? "https" : "http"}://${bracketed}:${port}`;
    const session = connectHttp2(authority, { ...TUNNEL_SESSION_OPTIONS, createConnection });
    const timer = setTimeout(
      () => session.destroy(new Error("connect timeout")),
      CONNECT_TIMEOUT_MS,
    );
    const failed = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    session.once("error", failed);
    session.once("connect", () => {
      clearTimeout(timer);
      session.off("error", failed);
      openConnectionWindow(session);
      if (tls) onHandshake((socket as TLSSocket).isSessionReused());
      resolve(session);
    });
  });
}
