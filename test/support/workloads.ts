/**
 * Internal gRPC clients for tests, each proving a workload identity with the certificate the test
 * system issued (system.pki), exactly as the services, the gateway and the admin tool do:
 *
 *   const auth = workloadClient(system, AuthService, "operator");        // the admin tool's identity
 *   const authoring = workloadClient(system, AuthoringService, "gateway", { user: token });
 *   const creds = grpcJsCredentials(system, "operator");                 // for @grpc/grpc-js
 *
 * A test that plays a hostile caller picks the wrong workload, no user, or a forged token.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import type * as grpc from "@grpc/grpc-js";
import {
  createInternalTransport,
  DEFAULT_TRUST_DOMAIN,
  type InternalIdentity,
  loadInternalIdentity,
  type Workload,
} from "@movement-detection/shared/security";
import type { LocalPki } from "../../deploy/local/local-pki.js";

/** The part of a test system these helpers need (TestSystem satisfies it). */
export interface WorkloadTestSystem {
  readonly pki: LocalPki | undefined;
  readonly services: Readonly<
    Record<"auth" | "catalogue" | "authoring" | "detection", { readonly grpcUrl: string }>
  >;
}

const SERVICE_OF: Readonly<Record<string, "auth" | "catalogue" | "authoring" | "detection">> = {
  "auth.v1.AuthService": "auth",
  "catalogue.v1.CatalogueService": "catalogue",
  "authoring.v1.AuthoringService": "authoring",
  "detection.v1.DetectionService": "detection",
};

const identities = new Map<string, InternalIdentity>();

/**
 * The mutual TLS identity of `workload` in this system (cached per certificate directory); in a
 * system started with INTERNAL_TRANSPORT=h2c, the workload asserted in a header instead.
 */
export function identityOf(system: WorkloadTestSystem, workload: Workload): InternalIdentity {
  if (!system.pki) {
    return {
      security: {
        transport: "h2c",
        workload,
        trustDomain: DEFAULT_TRUST_DOMAIN,
        tlsDir: "",
        reloadSeconds: 3600,
      },
      tls: undefined,
    };
  }
  const pki = system.pki;
  const dir = pki.tlsDirOf(workload);
  let identity = identities.get(dir);
  if (!identity) {
    identity = loadInternalIdentity({
      transport: "mtls",
      workload,
      trustDomain: pki.trustDomain,
      tlsDir: dir,
      reloadSeconds: 3600,
    });
    identity.tls?.close();
    identities.set(dir, identity);
  }
  return identity;
}

export function workloadTransport(
  system: WorkloadTestSystem,
  workload: Workload,
  options: { url: string; expected: Workload; user?: string; idleMs?: number },
): Transport {
  const interceptors: Interceptor[] = [];
  if (options.user !== undefined) {
    const user = options.user;
    interceptors.push((next) => (request) => {
      request.header.set("authorization", `Bearer ${user}`);
      return next(request);
    });
  }
  return createInternalTransport(identityOf(system, workload), {
    baseUrl: options.url,
    expected: options.expected,
    timeoutMs: 10_000,
    // Short: the HTTP/2 connection closes by itself so mocha can exit.
    idleConnectionTimeoutMs: options.idleMs ?? 1000,
    interceptors,
  });
}

/** A client of `service` (one of the four) calling as `workload`, optionally for a user token. */
export function workloadClient<T extends DescService>(
  system: WorkloadTestSystem,
  service: T,
  workload: Workload,
  options: { user?: string; url?: string } = {},
): Client<T> {
  const name = SERVICE_OF[service.typeName];
  if (!name) throw new Error(`no such internal service: ${service.typeName}`);
  return createClient(
    service,
    workloadTransport(system, workload, {
      url: options.url ?? system.services[name].grpcUrl,
      expected: name,
      user: options.user,
    }),
  );
}

/** PEM files of one workload: tls.crt, tls.key, ca.crt (and their paths, for command lines). */
export function tlsFilesOf(system: WorkloadTestSystem, workload: Workload) {
  const dir = requirePki(system).tlsDirOf(workload);
  const path = (name: string) => join(dir, name);
  return {
    certPath: path("tls.crt"),
    keyPath: path("tls.key"),
    caPath: path("ca.crt"),
    cert: readFileSync(path("tls.crt")),
    key: readFileSync(path("tls.key")),
    ca: readFileSync(path("ca.crt")),
  };
}

/** Channel credentials for @grpc/grpc-js presenting `workload`'s certificate. */
export function grpcJsCredentials(
  grpcModule: typeof grpc,
  system: WorkloadTestSystem,
  workload: Workload,
): grpc.ChannelCredentials {
  const files = tlsFilesOf(system, workload);
  return grpcModule.credentials.createSsl(files.ca, files.key, files.cert);
}

function requirePki(system: WorkloadTestSystem): LocalPki {
  if (!system.pki) throw new Error("this test system runs h2c: it has no certificates");
  return system.pki;
}
