import http2 from "node:http2";
import type { DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type Interceptor,
  type ServiceImpl,
} from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Reason } from "../errors/reasons.js";
import { serviceError } from "../errors/service-error.js";
import { listen } from "../process/listen.js";
import type { InternalIdentity } from "../security/internal-transport.js";
import { peerContextValues } from "../security/server-identity.js";

type RequestHandler = (
  request: http2.Http2ServerRequest,
  response: http2.Http2ServerResponse,
) => void;

/**
 * An HTTP/2 server speaking gRPC, gRPC-web and Connect, whose routes can be swapped once the
 * service is ready: until then every RPC but health answers UNAVAILABLE. Under mtls (the default)
 * it is TLS 1.3 and refuses, at the handshake, any client without a certificate of our CA; the
 * peer's workload is then put in each call's context values for the authorization interceptor.
 */
export interface GrpcServer {
  listen(port: number, host: string): Promise<number>;
  serve(routes: (router: ConnectRouter) => void): void;
  /** Stops accepting, lets open calls finish until the deadline, then cuts what is left. */
  close(deadlineMs: number): Promise<void>;
}

export interface GrpcServerOptions {
  readonly interceptors: Interceptor[];
  readonly shutdownSignal: AbortSignal;
  /** Health and anything else that must answer before the database does. */
  readonly alwaysOn: (router: ConnectRouter) => void;
  /** The service's own APIs, answered UNAVAILABLE until `serve` is called. */
  readonly services: readonly DescService[];
  /** Mutual TLS material and settings (plaintext h2c when its transport says so). */
  readonly identity: InternalIdentity;
}

/**
 * The largest request message, after any decompression (RESOURCE_EXHAUSTED above it, read no
 * further): the largest our callers send is a batch of catalogue entries or a 256 KiB YAML
 * source; without a bound, one 200 MB field took a service to 1.4 GB, and a 1 MB gzip body
 * inflated to 2 GB.
 */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** A deadline past what a timer can hold (2^31 - 1 ms, 24.8 days) is INVALID_ARGUMENT, not 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Calls in flight on one connection (HTTP/2 leaves it unbounded; each costs memory). */
export const MAX_CONCURRENT_STREAMS = 1000;

/**
 * An error a handler passes on from a service it called carries that call's response headers as
 * its metadata (content-length, content-type, date under the Connect protocol): written into this
 * call's trailers they break a gRPC client's stream (RST_STREAM, PROTOCOL_ERROR). What an error
 * says travels in its details; the metadata of someone else's answer is dropped.
 */
const ownErrorsOnly: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    if (error instanceof ConnectError) {
      for (const name of [...error.metadata.keys()]) error.metadata.delete(name);
    }
    throw error;
  }
};

export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const adapter = (routes: (router: ConnectRouter) => void): RequestHandler =>
    connectNodeAdapter({
      routes: (router) => {
        options.alwaysOn(router);
        routes(router);
      },
      // Innermost: what the others see (the observe interceptor's log) is what the caller gets.
      interceptors: [...options.interceptors, ownErrorsOnly],
      shutdownSignal: options.shutdownSignal,
      contextValues: peerContextValues(options.identity.security),
      readMaxBytes: MAX_REQUEST_BYTES,
      maxTimeoutMs: MAX_TIMEOUT_MS,
    }) as RequestHandler;

  let handler = adapter((router) => {
    for (const service of options.services) router.service(service, notReady(service));
  });
  const onRequest: RequestHandler = (request, response) => handler(request, response);
  const tls = options.identity.tls;
  const settings = { maxConcurrentStreams: MAX_CONCURRENT_STREAMS };
  const server = tls
    ? http2.createSecureServer({ ...tls.serverOptions(), settings }, onRequest)
    : http2.createServer({ settings }, onRequest);
  if (tls) {
    // cert-manager renewed the files: new connections present (and trust) the new ones.
    tls.onReload((files) => (server as http2.Http2SecureServer).setSecureContext(files));
  }
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  return {
    listen(port, host) {
      return listen(server, port, host);
    },
    serve(routes) {
      handler = adapter(routes);
    },
    async close(deadlineMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // GOAWAY: clients stop opening streams here; open streams run to completion.
      for (const session of sessions) session.close();
      const deadline = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, deadlineMs);
      deadline.unref();
      await closed;
      clearTimeout(deadline);
    },
  };
}

function notReady(service: DescService): ServiceImpl<DescService> {
  const unavailable = (): ConnectError =>
    serviceError(Code.Unavailable, Reason.notReady, `${service.typeName} is starting`);
  const impl: Record<string, unknown> = {};
  for (const method of service.methods) {
    impl[method.localName] =
      method.methodKind === "unary" || method.methodKind === "client_streaming"
        ? async () => {
            throw unavailable();
          }
        : // biome-ignore lint/correctness/useYield: a stream that fails before its first message
          async function* () {
            throw unavailable();
          };
  }
  return impl as ServiceImpl<DescService>;
}
