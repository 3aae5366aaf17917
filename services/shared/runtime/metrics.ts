import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** One Prometheus registry per process, with the RPC metrics every service exports. */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly rpcHandled: Counter<"service" | "method" | "code">;
  readonly rpcSeconds: Histogram<"service" | "method">;
  /** Every store method's duration: the service's view of its database's latency. */
  readonly storeSeconds: Histogram<"store" | "operation" | "outcome">;
}

export function createServiceMetrics(serviceName: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ app: serviceName });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    rpcHandled: new Counter({
      name: "grpc_server_handled_total",
      help: "RPCs completed on the server, by final status code.",
      labelNames: ["service", "method", "code"],
      registers: [registry],
    }),
    rpcSeconds: new Histogram({
      name: "grpc_server_handling_seconds",
      help: "Time to complete unary RPCs on the server.",
      labelNames: ["service", "method"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    storeSeconds: new Histogram({
      name: "store_operation_duration_seconds",
      help: "Time of each store operation (one or a few MongoDB commands), by store, method and outcome.",
      labelNames: ["store", "operation", "outcome"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}
