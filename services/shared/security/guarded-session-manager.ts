import type * as http2 from "node:http2";
import { Http2SessionManager, type Http2SessionOptions } from "@connectrpc/connect-node";

/**
 * connect-node's HTTP/2 session manager, with each connection it opens kept from crashing the
 * process after a GOAWAY.
 *
 * When a peer sends GOAWAY (a service stopping, a rolling restart, a load balancer closing an idle
 * connection) to a connection with no open stream, the manager destroys it with an error that
 * Node.js emits only once the socket has closed. A request in between makes the manager move on
 * and drop its own error listeners, so that late error has no listener and is thrown as an
 * uncaught exception (connect-es issue #1768, open at 2.1.2). Every connection gets a listener of
 * its own: the manager's listeners still see each error while they are attached; this one only
 * stops the late one from being thrown. Remove once connect-node ships the fix (connect-es #1769).
 */
export class GuardedSessionManager {
  readonly #manager: Http2SessionManager;
  readonly #guarded = new WeakSet<http2.ClientHttp2Session>();

  constructor(
    url: string,
    options?: Http2SessionOptions,
    nodeOptions?: http2.ClientSessionOptions | http2.SecureClientSessionOptions,
  ) {
    this.#manager = new Http2SessionManager(url, options, nodeOptions);
  }

  get authority(): string {
    return this.#manager.authority;
  }

  async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, "signal">,
  ): Promise<http2.ClientHttp2Stream> {
    const stream = await this.#manager.request(method, path, headers, options);
    const session = stream.session as http2.ClientHttp2Session | undefined;
    if (session && !this.#guarded.has(session)) {
      this.#guarded.add(session);
      session.on("error", ignoreLateError);
    }
    return stream;
  }

  notifyResponseByteRead(stream: http2.ClientHttp2Stream): void {
    this.#manager.notifyResponseByteRead(stream);
  }
}

function ignoreLateError(): void {}
