/**
 * Starting a detection replica again after a test killed it: the same gRPC port (so the
 * gateway's DETECTION_SERVICE_URLS still points at it), the same environment the stack gave it.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DetectionService } from "@movement-detection/proto/detection/v1";
import { type ManagedProcess, startProcess } from "../../../deploy/local/child-process.js";
import type { TestSystem } from "../../support/system.js";
import { tlsFilesOf, type WorkloadTestSystem, workloadClient } from "../../support/workloads.js";
import type { StreamTarget } from "./raw-stream.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export async function restartDetection(
  system: TestSystem,
  replicaIndex: number,
  serviceEnv: Record<string, string> = {},
): Promise<ManagedProcess> {
  const replica = system.detectionReplicas[replicaIndex];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SUPERVISED: "1",
    LOG_LEVEL: "debug",
    AUTH_SERVICE_URL: system.services.auth.grpcUrl,
    CATALOGUE_SERVICE_URL: system.services.catalogue.grpcUrl,
    AUTHORING_SERVICE_URL: system.services.authoring.grpcUrl,
    DETECTION_SERVICE_URLS: system.detectionReplicas.map((r) => r.grpcUrl).join(","),
    MONGODB_URI: system.mongodbUri,
    GRPC_HOST: "127.0.0.1",
    ...(system.pki
      ? { INTERNAL_TLS_DIR: system.pki.tlsDirOf("detection"), TRUST_DOMAIN: system.pki.trustDomain }
      : {}),
    GRPC_PORT: String(replica.grpcPort),
    ADMIN_PORT: "0",
    ...serviceEnv,
  };
  const name = `${replica.name}-restarted`;
  const child = startProcess({
    name,
    entry: join(REPO_ROOT, "services/detection/main.ts"),
    cwd: REPO_ROOT,
    env,
    sink: (processName, line) => {
      system.logs.push({ name: processName, line });
      if (process.env.TEST_LOGS === "1")
        process.stderr.write(`[${processName}] ${JSON.stringify(line)}\n`);
    },
  });
  await child.waitFor(["serving"], 30_000);
  return child;
}

/**
 * One replica's own stream listener (bypassing the gateway): asked over gRPC and reached over
 * mutual TLS as the gateway, the only workload that listener answers.
 */
export async function directStream(
  system: WorkloadTestSystem,
  grpcUrl: string,
  sessionId: string,
): Promise<StreamTarget> {
  const client = workloadClient(system, DetectionService, "gateway", { url: grpcUrl });
  const { streamPort } = await client.getStreamEndpoint({});
  const path = `127.0.0.1:${streamPort}/api/detection/sessions/${sessionId}/stream`;
  if (!system.pki) return { url: `ws://${path}` };
  const { cert, key, ca } = tlsFilesOf(system, "gateway");
  return { url: `wss://${path}`, tls: { cert, key, ca } };
}

/** A replica's metric (first sample matching `name` and an optional label fragment). */
export async function replicaMetric(adminUrl: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (line.startsWith(name) && line.includes(labels)) return Number(line.split(" ").at(-1));
  }
  return Number.NaN;
}
