import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createSecureContext,
  type PeerCertificate,
  type SecureContext,
  type SecureContextOptions,
} from "node:tls";
import type { InternalSecurity } from "./internal-security-config.js";
import { workloadOfCertificate } from "./peer-identity.js";
import type { Workload } from "./workloads.js";

/** The PEM text of one workload's certificate, its key and the CA that signs every workload. */
export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

/**
 * One process's TLS material, read from INTERNAL_TLS_DIR and read again every
 * INTERNAL_TLS_RELOAD_SECONDS: cert-manager renews certificates in place, and new connections
 * (server and client) pick the new ones up without a restart.
 */
export interface TlsMaterial {
  readonly security: InternalSecurity;
  files(): TlsFiles;
  /** The client-side secure context (our certificate, the CA): changes on reload. */
  secureContext(): SecureContext;
  /** Options for tls.createServer, https.createServer and http2.createSecureServer. */
  serverOptions(): SecureContextOptions & {
    requestCert: true;
    rejectUnauthorized: true;
    minVersion: "TLSv1.3";
  };
  /**
   * Options for tls.connect / http2.connect to a server that must be `expected`: the CA checks
   * the chain, and the SPIFFE ID, not the host name, checks who answered (replicas are reached
   * by pod IP, which no certificate names). The object is updated in place on reload, so a
   * transport holding it opens new connections with the new certificate.
   */
  clientOptions(expected: Workload): ClientTlsOptions;
  /** Called after a reload that changed the files (servers call setSecureContext). */
  onReload(listener: (files: TlsFiles) => void): void;
  close(): void;
}

export interface ClientTlsOptions {
  secureContext: SecureContext;
  minVersion: "TLSv1.3";
  rejectUnauthorized: true;
  checkServerIdentity(host: string, cert: PeerCertificate): Error | undefined;
}

export function readTlsFiles(dir: string): TlsFiles {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name), "utf8");
    } catch (error) {
      throw new Error(
        `internal TLS: cannot read ${join(dir, name)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); ` +
          "run `npm start` once to create the local certificates, set INTERNAL_TLS_DIR, or INTERNAL_TRANSPORT=h2c on a trusted network",
      );
    }
  };
  return { cert: read("tls.crt"), key: read("tls.key"), ca: read("ca.crt") };
}

export function loadTlsMaterial(
  security: InternalSecurity,
  onReloadError: (error: Error) => void = () => undefined,
): TlsMaterial {
  let files = readTlsFiles(security.tlsDir);
  const own = workloadOfCertificate(certificateSan(files.cert), security.trustDomain);
  if (own !== security.workload) {
    throw new Error(
      `internal TLS: ${join(security.tlsDir, "tls.crt")} is not a certificate of spiffe://${security.trustDomain}/${security.workload}`,
    );
  }
  let context = contextOf(files);
  const clients = new Set<ClientTlsOptions>();
  const listeners = new Set<(files: TlsFiles) => void>();

  const timer = setInterval(() => {
    try {
      const next = readTlsFiles(security.tlsDir);
      if (next.cert === files.cert && next.key === files.key && next.ca === files.ca) return;
      const nextContext = contextOf(next);
      files = next;
      context = nextContext;
      for (const options of clients) options.secureContext = context;
      for (const listener of listeners) listener(files);
    } catch (error) {
      // Keep the material we have: a half-written Secret update must not stop the service.
      onReloadError(error as Error);
    }
  }, security.reloadSeconds * 1000);
  timer.unref();

  return {
    security,
    files: () => files,
    secureContext: () => context,
    serverOptions: () => ({
      cert: files.cert,
      key: files.key,
      ca: files.ca,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.3",
    }),
    clientOptions(expected) {
      const options: ClientTlsOptions = {
        secureContext: context,
        minVersion: "TLSv1.3",
        rejectUnauthorized: true,
        checkServerIdentity: (_host, cert) => {
          const workload = workloadOfCertificate(cert.subjectaltname, security.trustDomain);
          return workload === expected
            ? undefined
            : new Error(
                `internal TLS: expected spiffe://${security.trustDomain}/${expected}, the server is ${workload ?? "no workload of this trust domain"}`,
              );
        },
      };
      clients.add(options);
      return options;
    },
    onReload(listener) {
      listeners.add(listener);
    },
    close() {
      clearInterval(timer);
    },
  };
}

function contextOf(files: TlsFiles): SecureContext {
  return createSecureContext({
    cert: files.cert,
    key: files.key,
    ca: files.ca,
    minVersion: "TLSv1.3",
  });
}

function certificateSan(pem: string): string | undefined {
  try {
    return new X509Certificate(pem).subjectAltName;
  } catch {
    return undefined;
  }
}
