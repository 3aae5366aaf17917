import type { ServiceImpl } from "@connectrpc/connect";
import type { AuthService } from "../../proto/gen/auth/v1/auth_pb.js";

export function createAuthHandlers(): ServiceImpl<typeof AuthService> {
  return {};
}
