import type { Http2ServerRequest, Http2Session } from "node:http2";
import type { TLSSocket } from "node:tls";
import { type ContextValues, createContextValues } from "@connectrpc/connect";
import { PEER_WORKLOAD_KEY } from "./caller.js";
import type { InternalSecurity } from "./internal-security-config.js";
import { ASSERTED_WORKLOAD_HEADER } from "./internal-transport.js";
import { workloadOfSocket } from "./peer-identity.js";
import { isWorkload, type Workload } from "./workloads.js";

/**
 * The adapter's `contextValues(req)`: who called, before any interceptor runs. Under mtls, the
 * SPIFFE ID of the certificate the TLS handshake verified, worked out once per connection (an
 * HTTP/2 session carries many calls); under h2c, the workload the caller asserts in a header.
 */
export function peerContextValues(
  security: Pick<InternalSecurity, "transport" | "trustDomain">,
): (request: unknown) => ContextValues {
  const bySession = new WeakMap<Http2Session, Workload | undefined>();
  return (raw) => {
    const values = createContextValues();
    const request = raw as Http2ServerRequest;
    if (security.transport === "h2c") {
      const asserted = request.headers[ASSERTED_WORKLOAD_HEADER];
      if (typeof asserted === "string" && isWorkload(asserted)) {
        values.set(PEER_WORKLOAD_KEY, asserted);
      }
      return values;
    }
    const session = request.stream?.session;
    if (!session) return values;
    if (!bySession.has(session)) {
      bySession.set(session, workloadOfSocket(session.socket as TLSSocket, security.trustDomain));
    }
    values.set(PEER_WORKLOAD_KEY, bySession.get(session));
    return values;
  };
}
