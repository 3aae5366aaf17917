import type { ServiceImpl } from "@connectrpc/connect";
import type { AuthoringService } from "../../proto/gen/authoring/v1/authoring_pb.js";

export function createAuthoringHandlers(): ServiceImpl<typeof AuthoringService> {
  return {};
}
