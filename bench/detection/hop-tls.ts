/**
 * The gateway-to-detection hop's mutual TLS for the one-process hop benchmarks (tls-hop,
 * hop-multiplex): the workload certificates `npm start` issues, detection as the server, the
 * gateway as the client, TLS 1.3, the client certificate required.
 */
import { join } from "node:path";
import tls from "node:tls";
import { readTlsFiles } from "@movement-detection/shared/security";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";

export interface HopTls {
  readonly serverOptions: tls.TlsOptions;
  /** Options to connect to `port` on loopback, offering `session` (a ticket) when given. */
  clientOptions(port: number, session?: Buffer): tls.ConnectionOptions;
}

/** Issues the certificates under `root` (a temporary directory the caller removes). */
export async function hopTls(root: string): Promise<HopTls> {
  const pki = await ensureLocalPki({ dir: join(root, "pki") });
  const clientContext = tls.createSecureContext(readTlsFiles(pki.tlsDirOf("gateway")));
  return {
    serverOptions: {
      ...readTlsFiles(pki.tlsDirOf("detection")),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.3",
    },
    clientOptions: (port, session) => ({
      port,
      host: "127.0.0.1",
      secureContext: clientContext,
      minVersion: "TLSv1.3",
      rejectUnauthorized: true,
      // The services check the SPIFFE ID here; the chain is what costs.
      checkServerIdentity: () => undefined,
      session,
    }),
  };
}
