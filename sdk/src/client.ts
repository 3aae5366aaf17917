import {
  type Credentials,
  type MachineCredential,
  parseCredential,
  tokenRequest,
} from "./credentials.js";
import { MdsApiError, MdsNetworkError } from "./errors.js";
import {
  type AccessToken,
  type CallOptions,
  type ErrorEnvelope,
  OPERATIONS,
  type OperationId,
  OperationMethods,
  type Operations,
  type SessionCreated,
} from "./generated/api.js";
import { backoffMs, DEFAULT_RETRY, type RetryPolicy, sleep } from "./retry.js";
import { StreamClient, type StreamClientOptions } from "./stream.js";
import { TokenSource } from "./token-source.js";

export interface MdsClientOptions {
  /** The gateway, e.g. `https://api.example.com` or `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /**
   * `{ apiKey }`, `{ keyId, keySecret }`, `{ serviceAccountId, serviceAccountSecret }`,
   * `{ accessToken }`, or a string: an API key, or `"key_id:key_secret"`. Omit it for anonymous
   * use (health, the public catalogue).
   */
  readonly credentials?: Credentials | string;
  readonly retry?: RetryPolicy;
  /** Default: the global fetch (Node 20+, browsers). */
  readonly fetch?: typeof fetch;
  /** For tests: the clock the token refresh uses. */
  readonly now?: () => number;
}

/** An answer with its status and headers (ETag, X-Request-Id). */
export interface ApiResponse<T> {
  readonly data: T;
  readonly status: number;
  readonly headers: Headers;
  readonly etag: string | undefined;
  readonly requestId: string | undefined;
}

const REFUSED_TOKEN = new Set(["TOKEN_EXPIRED", "TOKEN_INVALID"]);

/**
 * A typed client of the movement detection service's HTTP API: one method per operation
 * (generated from the OpenAPI document), access tokens minted and refreshed for you, retries with
 * backoff on retryable errors (honouring Retry-After), and an Idempotency-Key on the three
 * creating POSTs so that a retry never creates twice.
 *
 *   const client = new MdsClient({ baseUrl, credentials: { apiKey: "msk_..." } });
 *   const movespec = await client.createMoveSpec({ body: { name: "Squat", project_id } });
 */
export class MdsClient extends OperationMethods {
  readonly baseUrl: string;
  private readonly tokens: TokenSource | undefined;
  private readonly retry: Required<RetryPolicy>;
  private readonly fetchImpl: typeof fetch;

  constructor(options: MdsClientOptions) {
    super();
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const credentials =
      typeof options.credentials === "string"
        ? parseCredential(options.credentials)
        : options.credentials;
    this.tokens = credentials
      ? new TokenSource(credentials, (credential) => this.mint(credential), options.now)
      : undefined;
  }

  /** The project of the current access token (mints one if there is none yet). */
  async projectId(): Promise<string> {
    if (!this.tokens) throw new Error("no credentials: the client is anonymous");
    await this.tokens.token();
    const project = this.tokens.lastAnswer?.project_id;
    if (!project)
      throw new Error("the project is only known for credentials the client exchanges itself");
    return project;
  }

  /** A current access token (refreshed before expiry), e.g. to hand to another component. */
  async accessToken(): Promise<string> {
    if (!this.tokens) throw new Error("no credentials: the client is anonymous");
    return this.tokens.token();
  }

  call<K extends OperationId>(
    operation: K,
    input: Operations[K]["input"],
    options?: CallOptions,
  ): Promise<Operations[K]["output"]> {
    return this.request(operation, input, options).then((response) => response.data);
  }

  /** Like the operation methods, with the status and headers (an ETag for If-Match). */
  async request<K extends OperationId>(
    operation: K,
    input: Operations[K]["input"],
    options: CallOptions = {},
  ): Promise<ApiResponse<Operations[K]["output"]>> {
    const spec = OPERATIONS[operation];
    const values = input as Record<string, unknown> & {
      query?: Record<string, unknown>;
      body?: unknown;
    };
    const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values[name];
      if (typeof value !== "string" || value === "")
        throw new TypeError(`${operation}: ${name} is required`);
      return encodeURIComponent(value);
    });
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(values.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json" };
    if (values.body !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotencyKey && options.idempotencyKey !== false) {
      // One key for the logical request: every retry sends the same one.
      headers["idempotency-key"] = options.idempotencyKey ?? randomKey();
    }
    if (options.ifMatch) headers["if-match"] = options.ifMatch;
    if (options.requestId) headers["x-request-id"] = options.requestId;
    const body = values.body === undefined ? undefined : JSON.stringify(values.body);

    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      let token: string | undefined;
      if (spec.auth !== "none" && this.tokens) {
        token = await this.tokens.token();
        headers.authorization = `Bearer ${token}`;
      } else if (spec.auth === "required") {
        throw new Error(`${operation} needs credentials`);
      }
      let response: Response;
      try {
        response = await this.fetchImpl(url, {
          method: spec.method,
          headers,
          body,
          signal: options.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        // A request that may have reached the server is repeated only if repeating it is safe:
        // a lost answer to a PUT with If-Match, or to a finalize, would come back as a 412 or
        // a 409 for what in fact succeeded.
        const repeatable =
          spec.method === "GET" || headers["idempotency-key"] !== undefined || neverSent(error);
        if (!repeatable) {
          throw new MdsNetworkError(
            `${spec.method} ${url.origin}${url.pathname}: ${networkFailure(error)} (the connection was lost: the request may or may not have been applied)`,
            { cause: error },
          );
        }
        if (attempt >= this.retry.maxAttempts) {
          throw new MdsNetworkError(
            `${spec.method} ${url.origin}${url.pathname}: ${networkFailure(error)}`,
            { cause: error },
          );
        }
        await sleep(backoffMs(this.retry, attempt), options.signal);
        continue;
      }
      const text = await response.text();
      if (response.ok) {
        return {
          data: (text === "" ? undefined : JSON.parse(text)) as Operations[K]["output"],
          status: response.status,
          headers: response.headers,
          etag: response.headers.get("etag") ?? undefined,
          requestId: response.headers.get("x-request-id") ?? undefined,
        };
      }
      const error = new MdsApiError(response.status, parseEnvelope(text), response.headers);
      if (
        error.status === 401 &&
        token &&
        REFUSED_TOKEN.has(error.reason) &&
        !refreshed &&
        this.tokens?.canRefresh
      ) {
        // The token expired or the server no longer trusts it: one more try with a new one.
        refreshed = true;
        this.tokens.invalidate(token);
        attempt -= 1;
        continue;
      }
      if (!error.retryable || attempt >= this.retry.maxAttempts) throw error;
      const waitMs =
        error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : backoffMs(this.retry, attempt);
      if (waitMs > this.retry.maxRetryAfterMs) throw error;
      await sleep(waitMs, options.signal);
    }
  }

  /** The realtime stream of a session just created (its `stream_url` and `runtime_token`). */
  openStream(
    session: Pick<SessionCreated, "stream_url" | "runtime_token">,
    options: Omit<StreamClientOptions, "streamUrl" | "runtimeToken"> = {},
  ): StreamClient {
    return new StreamClient({
      ...options,
      streamUrl: session.stream_url,
      runtimeToken: session.runtime_token,
    });
  }

  private mint(credential: MachineCredential): Promise<AccessToken> {
    return this.call("mintAccessToken", { body: tokenRequest(credential) });
  }
}

function parseEnvelope(text: string): ErrorEnvelope | undefined {
  try {
    const parsed = JSON.parse(text) as ErrorEnvelope;
    return parsed && typeof parsed.error === "object" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A key for one logical request. `crypto.randomUUID` exists in secure contexts only (https,
 * localhost); `getRandomValues` everywhere, plain-http pages on a network included.
 */
function randomKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether a fetch failure says the connection was refused: the request never left. */
/** fetch's own message ("fetch failed") and the system's reason under it ("ECONNREFUSED"). */
function networkFailure(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  const message = (error as Error).message;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return cause?.code === "ECONNREFUSED";
}
