import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Logger } from "../logging/logger.js";
import {
  acceptRequestId,
  REQUEST_ID_HEADER,
  runWithRequestContext,
} from "../logging/request-context.js";
import type { ServiceMetrics } from "./metrics.js";

/**
 * Server interceptors, outermost first: request context (so every log line of the call carries
 * the gateway's request id), then observation (one log line and metrics per call).
 */
export function requestContextInterceptor(): Interceptor {
  return (next) => (request) => {
    const requestId = acceptRequestId(request.header.get(REQUEST_ID_HEADER));
    return runWithRequestContext({ requestId }, () => next(request));
  };
}

export interface InFlight {
  count: number;
  readonly idle: Set<() => void>;
}

export function observeInterceptor(
  logger: Logger,
  metrics: ServiceMetrics,
  inFlight: InFlight,
): Interceptor {
  return (next) => async (request) => {
    const service = request.service.typeName;
    const method = request.method.name;
    const started = performance.now();
    inFlight.count += 1;
    let code = "ok";
    try {
      return await next(request);
    } catch (error) {
      const connectError = ConnectError.from(error);
      code = codeToString(connectError.code);
      if (connectError.code === Code.Internal || connectError.code === Code.Unknown) {
        logger.error({ err: error, rpc: `${service}/${method}` }, "rpc failed");
      }
      throw connectError;
    } finally {
      inFlight.count -= 1;
      if (inFlight.count === 0) for (const wake of inFlight.idle) wake();
      const seconds = (performance.now() - started) / 1000;
      metrics.rpcHandled.inc({ service, method, code });
      if (!request.stream) metrics.rpcSeconds.observe({ service, method }, seconds);
      logger.debug({ rpc: `${service}/${method}`, code, ms: seconds * 1000 }, "rpc");
    }
  };
}
