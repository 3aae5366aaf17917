import type { Duplex } from "node:stream";
import { GatewayReason } from "@movement-detection/shared/errors";
import type { Logger } from "@movement-detection/shared/logging";
import { acceptRequestId } from "@movement-detection/shared/logging";
import { rawErrorResponse } from "../errors/raw-response.js";

/**
 * The HTTP server's `clientError` handler: a request Node's parser refused (CR/LF in a header,
 * headers past the size limit, both Content-Length and Transfer-Encoding, a garbage request line)
 * never reaches Koa, so it is answered here with the contract's envelope instead of Node's bare
 * 400. A socket that can no longer be written (reset, already answered, a slow client timed out)
 * is simply destroyed.
 */
export function clientErrorHandler(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (!socket.writable || error.code === "ECONNRESET" || answered(socket)) {
      socket.destroy();
      return;
    }
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      socket.destroy();
      return;
    }
    const requestId = acceptRequestId(undefined);
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    logger.debug({ err_code: error.code, request_id: requestId }, "malformed HTTP request");
    socket.end(
      rawErrorResponse(
        tooLarge
          ? {
              status: 431,
              code: "payload_too_large",
              reason: GatewayReason.headersTooLarge,
              message: "the request's headers are too large",
              requestId,
            }
          : {
              code: "invalid_argument",
              reason: GatewayReason.malformedRequest,
              message: "the request is not valid HTTP",
              requestId,
            },
      ),
    );
  };
}

/** A response already started on this connection (a pipelined request after it failed). */
function answered(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}
