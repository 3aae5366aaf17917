import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Counter, Histogram } from "prom-client";

export interface RpcClientMetrics {
  readonly handled: Counter<"service" | "method" | "code">;
  readonly seconds: Histogram<"service" | "method">;
}

/**
 * One sample per call the gateway makes to a service: its final code (labelled as the services'
 * own grpc_server_handled_total: `ok`, or the code's Connect name such as `not_found`) and how long it took. Health checks
 * (readiness) are counted too, under their own service name.
 */
export function rpcClientMetricsInterceptor(metrics: RpcClientMetrics): Interceptor {
  return (next) => async (request) => {
    const labels = { service: request.service.typeName, method: request.method.name };
    const started = performance.now();
    let code = "ok";
    try {
      return await next(request);
    } catch (error) {
      code = codeToString(ConnectError.from(error).code);
      throw error;
    } finally {
      metrics.handled.inc({ ...labels, code });
      metrics.seconds.observe(labels, (performance.now() - started) / 1000);
    }
  };
}
