import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";

/**
 * grpc.health.v1 through clients that know nothing of this project: @grpc/grpc-js with the
 * grpc-health-check package's descriptor, and the `buf curl` command line. An `https://` URL is
 * reached with mutual TLS: `tls` is a workload's files (see workloads.ts, tlsFilesOf).
 */
export interface ClientTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer;
  readonly certPath: string;
  readonly keyPath: string;
  readonly caPath: string;
}
const HealthClient = grpc.makeGenericClientConstructor(healthService, "Health");

type HealthStub = grpc.Client & {
  check(
    request: { service: string },
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
  check(
    request: { service: string },
    metadata: grpc.Metadata,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
  watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
};

/** `host:port` of a service URL such as http://127.0.0.1:50051. */
function grpcAddress(url: string): string {
  return new URL(url).host;
}

export function grpcHealthClient(url: string, tls?: ClientTls): HealthStub {
  const credentials = url.startsWith("https:")
    ? grpc.credentials.createSsl(requireTls(tls).ca, requireTls(tls).key, requireTls(tls).cert)
    : grpc.credentials.createInsecure();
  return new HealthClient(grpcAddress(url), credentials) as unknown as HealthStub;
}

function requireTls(tls: ClientTls | undefined): ClientTls {
  if (!tls) throw new Error("an https:// service needs a client certificate (tls)");
  return tls;
}

export function grpcJsHealthCheck(url: string, service = "", tls?: ClientTls): Promise<string> {
  const client = grpcHealthClient(url, tls);
  return new Promise((resolve, reject) => {
    client.check({ service }, (error, response) => {
      client.close();
      if (error) reject(error);
      else resolve(String(response?.status));
    });
  });
}

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** Runs `buf curl` against a service; resolves with its parsed JSON output. */
export function bufCurlHealthCheck(
  url: string,
  service = "",
  tls?: ClientTls,
): Promise<{ status?: string }> {
  const buf = join(REPO_ROOT, "node_modules/.bin/buf");
  const transport = url.startsWith("https:")
    ? [
        "--cacert",
        requireTls(tls).caPath,
        "--cert",
        requireTls(tls).certPath,
        "--key",
        requireTls(tls).keyPath,
      ]
    : ["--http2-prior-knowledge"];
  const args = [
    "curl",
    "--schema",
    join(REPO_ROOT, "proto"),
    ...transport,
    "--protocol",
    "grpc",
    "-d",
    JSON.stringify({ service }),
    `${url}/grpc.health.v1.Health/Check`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(buf, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`buf curl exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as { status?: string });
    });
  });
}
