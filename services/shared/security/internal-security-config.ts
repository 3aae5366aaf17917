import { join } from "node:path";
import {
  ConfigError,
  type Env,
  envEnum,
  envInt,
  envOptionalString,
  envString,
} from "../config/env.js";
import { DEFAULT_TRUST_DOMAIN, isTrustDomain, type Workload } from "./workloads.js";

/**
 * How this process proves who it is on internal calls, and checks who calls it (docs/security.md):
 * - `mtls` (the default): TLS 1.3 both ways with a certificate per workload; the peer's identity
 *   is the SPIFFE ID in its certificate, signed by the CA in `ca.crt`.
 * - `h2c`: plaintext HTTP/2 for a network that is trusted as a whole (a service mesh doing mTLS
 *   for us, a laptop). Callers then only *assert* their workload in a header: the per-method
 *   table still applies, but nothing is proven. Logged as a warning at start.
 */
export interface InternalSecurity {
  readonly transport: "mtls" | "h2c";
  /** This process's own identity. */
  readonly workload: Workload;
  readonly trustDomain: string;
  /** `tls.crt`, `tls.key` and `ca.crt`: a cert-manager Secret's layout (mtls only). */
  readonly tlsDir: string;
  /** How often the files are read again (cert-manager renews them in place). */
  readonly reloadSeconds: number;
}

export const INTERNAL_TRANSPORTS = ["mtls", "h2c"] as const;

/** Where `npm start` writes each workload's certificate (relative to the repository). */
export const LOCAL_PKI_DIR = ".data/pki";

export function readInternalSecurity(env: Env, workload: Workload): InternalSecurity {
  const transport = envEnum(env, "INTERNAL_TRANSPORT", INTERNAL_TRANSPORTS, "mtls");
  const production = envString(env, "ENVIRONMENT", "development") === "production";
  const explicitDir = envOptionalString(env, "INTERNAL_TLS_DIR");
  if (transport === "mtls" && production && explicitDir === undefined) {
    throw new ConfigError("INTERNAL_TLS_DIR", "is required when ENVIRONMENT=production");
  }
  const trustDomain = envString(env, "TRUST_DOMAIN", DEFAULT_TRUST_DOMAIN);
  if (!isTrustDomain(trustDomain)) {
    throw new ConfigError(
      "TRUST_DOMAIN",
      `must be a lowercase DNS-like name, got "${trustDomain}"`,
    );
  }
  return Object.freeze({
    transport,
    workload,
    trustDomain,
    tlsDir: explicitDir ?? join(LOCAL_PKI_DIR, workload),
    reloadSeconds: envInt(env, "INTERNAL_TLS_RELOAD_SECONDS", 60, { min: 1, max: 86_400 }),
  });
}

/**
 * The URL of an internal service from `name` (e.g. AUTH_SERVICE_URL). Its scheme must say what
 * the transport is, `https://` under mtls and `http://` under h2c, so that a configuration never
 * silently means something else; unset, it is 127.0.0.1 on the service's default port.
 */
export function internalServiceUrl(
  env: Env,
  name: string,
  defaultPort: number,
  security: Pick<InternalSecurity, "transport">,
): string {
  const scheme = security.transport === "mtls" ? "https" : "http";
  const value = envString(env, name, `${scheme}://127.0.0.1:${defaultPort}`);
  return checkInternalUrl(name, value, security);
}

/** The same check for a list (DETECTION_SERVICE_URLS) or a computed URL. */
export function checkInternalUrl(
  name: string,
  value: string,
  security: Pick<InternalSecurity, "transport">,
): string {
  const scheme = security.transport === "mtls" ? "https:" : "http:";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${value}"`);
  }
  if (url.protocol !== scheme) {
    throw new ConfigError(
      name,
      `must start with ${scheme}// (INTERNAL_TRANSPORT=${security.transport}), got "${value}"`,
    );
  }
  return value;
}

/** The warning every process logs at start when internal calls are plaintext. */
export const PLAINTEXT_WARNING =
  "INTERNAL_TRANSPORT=h2c: internal calls are plaintext and workload identities are asserted, not proven; use only on a network trusted as a whole";
