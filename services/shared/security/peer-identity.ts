import type { TLSSocket } from "node:tls";
import { type Workload, workloadOfSpiffeId } from "./workloads.js";

/**
 * The workload a certificate's subjectAltName (Node's text form, e.g.
 * `URI:spiffe://td/auth, DNS:localhost`) names. SPIFFE: exactly one URI SAN. Node quotes values
 * holding separators; our certificates never have such values, so any quote is refused rather
 * than parsed (a crafted DNS name must not pass for a second URI entry).
 */
export function workloadOfCertificate(
  subjectAltName: string | undefined,
  trustDomain: string,
): Workload | undefined {
  if (!subjectAltName || subjectAltName.includes('"')) return undefined;
  const uris = subjectAltName
    .split(", ")
    .filter((entry) => entry.startsWith("URI:"))
    .map((entry) => entry.slice("URI:".length));
  if (uris.length !== 1) return undefined;
  return workloadOfSpiffeId(uris[0], trustDomain);
}

/**
 * Who is at the other end of a TLS socket: a workload only when the handshake verified its
 * certificate against our CA (`authorized`) and the certificate carries one of our SPIFFE IDs.
 */
export function workloadOfSocket(socket: TLSSocket, trustDomain: string): Workload | undefined {
  if (!socket.authorized) return undefined;
  return workloadOfCertificate(socket.getPeerCertificate(false)?.subjectaltname, trustDomain);
}
