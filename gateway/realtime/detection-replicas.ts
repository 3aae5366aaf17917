import type { Client } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import type { DetectionService } from "../../proto/gen/detection/v1/detection_pb.js";
import { errorInfo } from "../../services/shared/errors/service-error.js";

type DetectionClient = Client<typeof DetectionService>;

/**
 * Any detection replica answers the session RPCs (their state is in MongoDB): calls go round
 * robin, and move on to the next replica when one cannot be reached at all (connection refused:
 * nothing was done there). Errors a replica returned are the caller's.
 */
export interface DetectionReplicas {
  call<T>(rpc: (client: DetectionClient) => Promise<T>): Promise<T>;
}

export function createDetectionReplicas(clients: readonly DetectionClient[]): DetectionReplicas {
  let next = 0;
  return {
    async call(rpc) {
      if (clients.length === 0) throw new Error("no detection replica configured");
      const first = next;
      next = (next + 1) % clients.length;
      let lastError: unknown;
      for (let offset = 0; offset < clients.length; offset += 1) {
        const client = clients[(first + offset) % clients.length];
        try {
          return await rpc(client);
        } catch (error) {
          if (!unreachable(error)) throw error;
          lastError = error;
        }
      }
      throw lastError;
    },
  };
}

/** UNAVAILABLE without a service's reason: the replica was not reached (down, restarting). */
function unreachable(error: unknown): boolean {
  const info = errorInfo(error);
  return info.code === Code.Unavailable && info.reason === undefined;
}
