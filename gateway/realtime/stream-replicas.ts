import { connect, type Socket } from "node:net";
import { connect as connectTls, type SecureContext, type TLSSocket } from "node:tls";
import type { Client } from "@connectrpc/connect";
import type { DetectionService } from "../../proto/gen/detection/v1/detection_pb.js";
import type { Logger } from "../../services/shared/logging/logger.js";
import {
  ASSERTED_WORKLOAD_HEADER,
  type InternalIdentity,
} from "../../services/shared/security/internal-transport.js";

type DetectionClient = Client<typeof DetectionService>;

/** Where one replica's websocket listener is. */
interface StreamEndpoint {
  readonly host: string;
  readonly port: number;
  readonly maxMessageBytes: number;
}

interface Replica {
  readonly url: string;
  readonly client: DetectionClient;
  endpoint: Promise<StreamEndpoint> | undefined;
  open: number;
  /** The replica's last TLS session ticket, and the client context it was issued to. */
  ticket: { readonly session: Buffer; readonly context: SecureContext } | undefined;
}

export interface StreamUpstream {
  readonly socket: Socket;
  readonly replica: string;
  readonly maxMessageBytes: number;
  /** Extra header lines the replica must see on the upgrade (the asserted identity under h2c). */
  readonly headers: readonly string[];
  /** Call once the proxied stream ended (balancing counts open streams per replica). */
  done(): void;
}

/**
 * The detection replicas' stream listeners, for new websocket streams: the replica with the
 * fewest open streams first (ties in turn), the next one if it cannot be reached. Each
 * replica's stream port is asked once over gRPC (GetStreamEndpoint) and asked again after a
 * failed connection (a restarted replica may listen elsewhere). The hop is mutual TLS: the
 * gateway presents its certificate and accepts only a detection certificate in return, and
 * offers each replica the last session ticket it issued, so that a new stream resumes the TLS
 * session instead of a full handshake (about 2.4 times less CPU on both sides,
 * bench/detection/tls-hop.bench.ts). A ticket is dropped when the gateway's certificate is
 * reloaded or a connection fails; a replica that no longer accepts it simply does a full
 * handshake, whose server identity is checked as always.
 */
export interface StreamReplicas {
  connect(): Promise<StreamUpstream>;
}

const CONNECT_TIMEOUT_MS = 2000;
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

export function createStreamReplicas(
  clients: readonly DetectionClient[],
  urls: readonly string[],
  logger: Logger,
  identity: InternalIdentity,
  onHandshake: (resumed: boolean) => void = () => undefined,
): StreamReplicas {
  const tls = identity.tls?.clientOptions("detection");
  const headers = tls ? [] : [`${ASSERTED_WORKLOAD_HEADER}: ${identity.security.workload}`];
  const replicas: Replica[] = clients.map((client, index) => ({
    url: urls[index] ?? `replica-${index}`,
    client,
    endpoint: undefined,
    open: 0,
    ticket: undefined,
  }));
  let turn = 0;

  const endpointOf = (replica: Replica): Promise<StreamEndpoint> => {
    replica.endpoint ??= replica.client
      .getStreamEndpoint({}, { timeoutMs: CONNECT_TIMEOUT_MS })
      .then(
        (answer) => ({
          host: new URL(replica.url).hostname,
          port: answer.streamPort,
          maxMessageBytes: answer.maxMessageBytes || DEFAULT_MAX_MESSAGE_BYTES,
        }),
        (error) => {
          replica.endpoint = undefined;
          throw error;
        },
      );
    return replica.endpoint;
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

  const tryReplica = async (replica: Replica): Promise<StreamUpstream> => {
    const endpoint = await endpointOf(replica);
    let socket: Socket;
    try {
      socket = await openSocket(
        endpoint.host,
        endpoint.port,
        tls && { ...tls, ...resumption(replica) },
      );
    } catch (error) {
      replica.endpoint = undefined;
      replica.ticket = undefined;
      throw error;
    }
    if (tls) onHandshake((socket as TLSSocket).isSessionReused());
    replica.open += 1;
    let counted = true;
    return {
      socket,
      replica: replica.url,
      maxMessageBytes: endpoint.maxMessageBytes,
      headers,
      done() {
        if (counted) replica.open -= 1;
        counted = false;
      },
    };
  };

  return {
    async connect() {
      const start = turn;
      turn = (turn + 1) % Math.max(replicas.length, 1);
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
          return await tryReplica(replica);
        } catch (error) {
          lastError = error;
          logger.debug(
            { replica: replica.url, err: (error as Error).message },
            "stream replica unreachable",
          );
        }
      }
      throw lastError;
    },
  };
}

type UpstreamTls = ReturnType<NonNullable<InternalIdentity["tls"]>["clientOptions"]> & {
  readonly session: Buffer | undefined;
  readonly onSession: (session: Buffer) => void;
};

function openSocket(host: string, port: number, tls: UpstreamTls | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    let socket: Socket;
    if (tls) {
      const { onSession, ...options } = tls;
      socket = connectTls({ host, port, ...options, ALPNProtocols: ["http/1.1"] }).setNoDelay(true);
      // TLS 1.3 tickets come after the handshake, possibly several: the last one is kept.
      socket.on("session", onSession);
    } else {
      socket = connect({ host, port, noDelay: true });
    }
    const timer = setTimeout(
      () => socket.destroy(new Error("connect timeout")),
      CONNECT_TIMEOUT_MS,
    );
    socket.once(tls ? "secureConnect" : "connect", () => {
      clearTimeout(timer);
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
