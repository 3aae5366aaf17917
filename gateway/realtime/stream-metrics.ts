import type { Counter, Gauge, Histogram } from "prom-client";

/** Bytes and messages proxied one way, added up as they pass and counted at each scrape. */
export interface TrafficTally {
  bytes: number;
  messages: number;
}

/** What the websocket proxy reports (see gateway/metrics.ts for names and help). */
export interface StreamProxyMetrics {
  readonly open: Gauge;
  readonly attaches: Counter<"outcome">;
  readonly messages: Counter<"direction">;
  readonly bytes: Counter<"direction">;
  /**
   * What passed since the last scrape, by direction: two additions per chunk instead of two
   * labelled counter increments (prom-client hashes the labels and checks the value at each),
   * moved into `messages` and `bytes` when they are collected.
   */
  readonly traffic: Readonly<Record<"inbound" | "outbound", TrafficTally>>;
  readonly upstreamHandshakes: Counter<"resumed">;
  readonly closes: Counter<"code">;
  readonly seconds: Histogram;
}
