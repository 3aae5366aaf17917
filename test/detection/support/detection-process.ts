/**
 * Starting a detection replica again after a test killed it: the same gRPC port (so the
 * gateway's DETECTION_SERVICE_URLS still points at it), the same environment the stack gave it.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { type ManagedProcess, startProcess } from "../../../deploy/local/child-process.js";
import { DetectionService } from "../../../proto/gen/detection/v1/detection_pb.js";
import type { TestSystem } from "../../support/system.js";

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

/** The websocket URL of one replica's own listener (bypassing the gateway). */
export async function directStreamUrl(grpcUrl: string, sessionId: string): Promise<string> {
  const client = createClient(
    DetectionService,
    createGrpcTransport({ baseUrl: grpcUrl, idleConnectionTimeoutMs: 500 }),
  );
  const { streamPort } = await client.getStreamEndpoint({});
  return `ws://127.0.0.1:${streamPort}/api/detection/sessions/${sessionId}/stream`;
}

/** A replica's metric (first sample matching `name` and an optional label fragment). */
export async function replicaMetric(adminUrl: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (line.startsWith(name) && line.includes(labels)) return Number(line.split(" ").at(-1));
  }
  return Number.NaN;
}
