import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";

/**
 * grpc.health.v1 through clients that know nothing of this project: @grpc/grpc-js with the
 * grpc-health-check package's descriptor, and the `buf curl` command line.
 */
const HealthClient = grpc.makeGenericClientConstructor(healthService, "Health");

type HealthStub = grpc.Client & {
  check(
    request: { service: string },
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
  watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
};

/** `host:port` of a service URL such as http://127.0.0.1:50051. */
function grpcAddress(url: string): string {
  return new URL(url).host;
}

export function grpcHealthClient(url: string): HealthStub {
  return new HealthClient(
    grpcAddress(url),
    grpc.credentials.createInsecure(),
  ) as unknown as HealthStub;
}

export function grpcJsHealthCheck(url: string, service = ""): Promise<string> {
  const client = grpcHealthClient(url);
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
export function bufCurlHealthCheck(url: string, service = ""): Promise<{ status?: string }> {
  const buf = join(REPO_ROOT, "node_modules/.bin/buf");
  const args = [
    "curl",
    "--schema",
    join(REPO_ROOT, "proto"),
    "--http2-prior-knowledge",
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
