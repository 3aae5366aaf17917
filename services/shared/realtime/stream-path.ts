/**
 * The public path of a detection session's stream (contract 1:
 * `{public_base}/api/detection/sessions/{id}/stream`). The gateway answers it in `stream_url`,
 * matches it on the upgrade and forwards it unchanged; the replica matches it again for the id.
 */
const STREAM_PATH = /^\/api\/detection\/sessions\/([^/?#]+)\/stream(?:\?.*)?$/;

/** Its template: the name of the gateway's span, its `route` in the access log. */
export const STREAM_ROUTE = "/api/detection/sessions/:session_id/stream";

/** The stream path of a session (the id as the service made it: no escaping needed). */
export function streamPath(sessionId: string): string {
  return `/api/detection/sessions/${sessionId}/stream`;
}

/**
 * The `{id}` segment of a request target that is a stream path (a query may follow), or undefined
 * for any other target. The id is not checked here: an unknown one is the stream's 4404.
 */
export function streamPathSession(target: string | undefined): string | undefined {
  return STREAM_PATH.exec(target ?? "")?.[1];
}
