import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "@movement-detection/proto/grpc/health/v1";

export { ServingStatus };

type Listener = (status: ServingStatus) => void;

/**
 * The health entry a liveness probe asks for: SERVING for as long as the process answers at all,
 * whatever its database does, so that an outage of MongoDB never restarts every replica.
 */
const LIVENESS_SERVICE = "liveness";

/**
 * The standard grpc.health.v1 state of one process: "" (the whole server) plus one entry per
 * served gRPC service, all switched together since a service is only as ready as its database,
 * plus the `liveness` entry, always SERVING.
 */
export class HealthState {
  private status = ServingStatus.NOT_SERVING;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly serviceNames: readonly string[]) {}

  knows(service: string): boolean {
    return service === "" || service === LIVENESS_SERVICE || this.serviceNames.includes(service);
  }

  statusOf(service: string): ServingStatus {
    return service === LIVENESS_SERVICE ? ServingStatus.SERVING : this.status;
  }

  get current(): ServingStatus {
    return this.status;
  }

  set(status: ServingStatus): void {
    if (status === this.status) return;
    this.status = status;
    for (const listener of this.listeners) listener(status);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function createHealthService(state: HealthState): ServiceImpl<typeof Health> {
  return {
    check(request) {
      if (!state.knows(request.service)) {
        // Bounded: the name travels back in grpc-message, a header (a 1 MB name broke the frame).
        const name =
          request.service.length > 200 ? `${request.service.slice(0, 200)}...` : request.service;
        throw new ConnectError(`unknown service "${name}"`, Code.NotFound);
      }
      return { status: state.statusOf(request.service) };
    },
    async *watch(request, context) {
      if (!state.knows(request.service)) {
        yield { status: ServingStatus.SERVICE_UNKNOWN };
        return;
      }
      const pending: ServingStatus[] = [state.statusOf(request.service)];
      let wake: (() => void) | undefined;
      const unsubscribe = state.subscribe((status) => {
        if (request.service === LIVENESS_SERVICE) return;
        pending.push(status);
        wake?.();
      });
      const stopped = new Promise<void>((resolve) => {
        context.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      try {
        // Statuses set while shutting down (NOT_SERVING) are still delivered before the end.
        for (;;) {
          while (pending.length > 0) {
            const status = pending.shift() as ServingStatus;
            yield { status };
          }
          if (context.signal.aborted) return;
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), stopped]);
        }
      } finally {
        unsubscribe();
      }
    },
  };
}
