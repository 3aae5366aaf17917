/**
 * The workloads of the system: every process that calls or serves internal gRPC has exactly one
 * of these identities, carried in its certificate as a SPIFFE ID (a URI SAN):
 * `spiffe://<trust domain>/<workload>`. `operator` is the humans' and tools' identity (the admin
 * CLI, `buf curl`, grpcurl), issued at bootstrap.
 */
export const WORKLOADS = [
  "gateway",
  "auth",
  "catalogue",
  "authoring",
  "detection",
  "operator",
] as const;
export type Workload = (typeof WORKLOADS)[number];

export const DEFAULT_TRUST_DOMAIN = "movement-detection.local";

/** A trust domain is a DNS-like name (SPIFFE ID spec: lowercase letters, digits, `.`, `-`, `_`). */
const TRUST_DOMAIN = /^[a-z0-9._-]{1,255}$/;

export function isTrustDomain(value: string): boolean {
  return TRUST_DOMAIN.test(value);
}

export function isWorkload(value: string): value is Workload {
  return (WORKLOADS as readonly string[]).includes(value);
}

export function spiffeId(trustDomain: string, workload: Workload): string {
  return `spiffe://${trustDomain}/${workload}`;
}

/**
 * The workload a SPIFFE ID names, if it is exactly `spiffe://<trustDomain>/<known workload>`:
 * another trust domain, a longer path, a query or an unknown name is no identity at all.
 */
export function workloadOfSpiffeId(id: string, trustDomain: string): Workload | undefined {
  const prefix = `spiffe://${trustDomain}/`;
  if (!id.startsWith(prefix)) return undefined;
  const name = id.slice(prefix.length);
  return isWorkload(name) ? name : undefined;
}
