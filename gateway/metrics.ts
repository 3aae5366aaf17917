import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { HttpMetrics } from "./middleware/access-log.js";
import type { StreamProxyMetrics } from "./realtime/stream-metrics.js";
import type { RpcClientMetrics } from "./rpc-client-metrics.js";

/** Everything the gateway's /metrics exports (admin port). Labels are bounded: no ids, no paths. */
export interface GatewayMetrics {
  readonly registry: Registry;
  readonly http: HttpMetrics;
  readonly rpc: RpcClientMetrics;
  readonly streams: StreamProxyMetrics;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createGatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ app: "gateway" });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const traffic = {
    inbound: { bytes: 0, messages: 0 },
    outbound: { bytes: 0, messages: 0 },
  };
  return {
    registry,
    http: {
      requests: new Counter({
        name: "http_requests_total",
        help: "HTTP requests answered, by route template and status.",
        labelNames: ["method", "route", "status"] as const,
        registers,
      }),
      seconds: new Histogram({
        name: "http_request_duration_seconds",
        help: "Time to answer HTTP requests.",
        labelNames: ["method", "route"] as const,
        buckets: LATENCY_BUCKETS,
        registers,
      }),
    },
    rpc: {
      handled: new Counter({
        name: "grpc_client_handled_total",
        help: "gRPC calls the gateway made to the services, by final status code.",
        labelNames: ["service", "method", "code"] as const,
        registers,
      }),
      seconds: new Histogram({
        name: "grpc_client_handling_seconds",
        help: "Time from the gateway's call to a service until its answer (or failure).",
        labelNames: ["service", "method"] as const,
        buckets: LATENCY_BUCKETS,
        registers,
      }),
    },
    streams: {
      open: new Gauge({
        name: "gateway_streams_open",
        help: "Realtime websocket streams the gateway is proxying now.",
        registers,
      }),
      attaches: new Counter({
        name: "gateway_stream_attaches_total",
        help: "Websocket stream upgrades, by outcome (proxied, refused, unavailable).",
        labelNames: ["outcome"] as const,
        registers,
      }),
      messages: new Counter({
        name: "gateway_stream_messages_total",
        help: "Websocket messages proxied, by direction (inbound: client to service).",
        labelNames: ["direction"] as const,
        registers,
        collect() {
          for (const direction of ["inbound", "outbound"] as const) {
            this.inc({ direction }, traffic[direction].messages);
            traffic[direction].messages = 0;
          }
        },
      }),
      bytes: new Counter({
        name: "gateway_stream_bytes_total",
        help: "Bytes proxied on websocket streams (frames and headers), by direction.",
        labelNames: ["direction"] as const,
        registers,
        collect() {
          for (const direction of ["inbound", "outbound"] as const) {
            this.inc({ direction }, traffic[direction].bytes);
            traffic[direction].bytes = 0;
          }
        },
      }),
      traffic,
      upstreamHandshakes: new Counter({
        name: "gateway_stream_upstream_handshakes_total",
        help: "TLS handshakes with detection replicas (one per shared HTTP/2 connection), by whether the session was resumed.",
        labelNames: ["resumed"] as const,
        registers,
      }),
      closes: new Counter({
        name: "gateway_stream_closes_total",
        help: "Proxied streams ended, by websocket close code (none: the connection just ended).",
        labelNames: ["code"] as const,
        registers,
      }),
      seconds: new Histogram({
        name: "gateway_stream_duration_seconds",
        help: "How long proxied streams lasted.",
        buckets: [1, 10, 60, 300, 900, 1800, 3600, 7200, 14400],
        registers,
      }),
    },
  };
}
