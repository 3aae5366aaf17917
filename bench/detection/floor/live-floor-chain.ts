/**
 * The floor of a live frame as live-floor.bench.ts and session-memory.bench.ts start it: the
 * floor detection (./detection-floor.ts) and the floor gateway tunnelling to it
 * (./gateway-floor.ts), under mutual TLS with certificates of their own.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLocalPki } from "../../../deploy/local/local-pki.js";
import { HOT_PATH_NODE_FLAGS } from "../../../deploy/local/node-flags.js";
import { type FloorProcess, startFloor } from "../../support/floor-process.js";

export interface LiveFloor {
  readonly detection: FloorProcess;
  readonly gateway: FloorProcess;
  /** Kills both and removes their certificates. */
  stop(): Promise<void>;
}

/** Starts both; `env` adds variables to either (FLOOR_EVENT_SEQS, a preload's NODE_OPTIONS). */
export async function startLiveFloor(
  env: { detection?: Record<string, string>; gateway?: Record<string, string> } = {},
): Promise<LiveFloor> {
  const pkiDir = await mkdtemp(join(tmpdir(), "mds-live-floor-"));
  const started: FloorProcess[] = [];
  const stop = async () => {
    for (const floor of started) floor.child.kill("SIGKILL");
    await rm(pkiDir, { recursive: true, force: true });
  };
  try {
    const pki = await ensureLocalPki({ dir: pkiDir });
    const identity = (workload: "gateway" | "detection") => ({
      FLOOR_TLS_DIR: pki.tlsDirOf(workload),
      FLOOR_TRUST_DOMAIN: pki.trustDomain,
    });
    const detection = await startFloor(
      new URL("./detection-floor.ts", import.meta.url),
      { ...identity("detection"), ...env.detection },
      HOT_PATH_NODE_FLAGS,
    );
    started.push(detection);
    const gateway = await startFloor(
      new URL("./gateway-floor.ts", import.meta.url),
      { ...identity("gateway"), FLOOR_DETECTION_PORT: String(detection.port), ...env.gateway },
      HOT_PATH_NODE_FLAGS,
    );
    started.push(gateway);
    return { detection, gateway, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
