/** The internal identity of a floor process (a benchmark's stand-in for a service): mutual TLS, as the services run. */
import type { InternalSecurity, Workload } from "@movement-detection/shared/security";
import { type InternalIdentity, loadInternalIdentity } from "@movement-detection/shared/security";

export function floorIdentity(workload: Workload): InternalIdentity {
  const tlsDir = process.env.FLOOR_TLS_DIR;
  const trustDomain = process.env.FLOOR_TRUST_DOMAIN;
  if (!tlsDir || !trustDomain) throw new Error("FLOOR_TLS_DIR and FLOOR_TRUST_DOMAIN are required");
  const security: InternalSecurity = {
    transport: "mtls",
    workload,
    trustDomain,
    tlsDir,
    reloadSeconds: 3600,
  };
  return loadInternalIdentity(security);
}
