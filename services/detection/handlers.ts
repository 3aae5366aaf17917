import type { ServiceImpl } from "@connectrpc/connect";
import type { DetectionService } from "../../proto/gen/detection/v1/detection_pb.js";

export function createDetectionHandlers(): ServiceImpl<typeof DetectionService> {
  return {};
}
