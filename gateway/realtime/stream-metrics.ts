import type { Counter, Gauge, Histogram } from "prom-client";

/** What the websocket proxy reports (see gateway/metrics.ts for names and help). */
export interface StreamProxyMetrics {
  readonly open: Gauge;
  readonly attaches: Counter<"outcome">;
  readonly messages: Counter<"direction">;
  readonly bytes: Counter<"direction">;
  readonly closes: Counter<"code">;
  readonly upstreamHandshakes: Counter<"resumed">;
  readonly seconds: Histogram;
}
