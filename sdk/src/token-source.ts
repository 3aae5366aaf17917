import type { Credentials, MachineCredential } from "./credentials.js";
import type { AccessToken } from "./generated/api.js";

/** Mints access tokens from a machine credential; the client hands it its own request function. */
export type Mint = (credential: MachineCredential) => Promise<AccessToken>;

/**
 * Holds the current access token and gets a new one before it expires: when less than the refresh
 * margin is left (10 % of its lifetime, at least 10 s and at most 60 s), the next call mints a new
 * one. Concurrent callers share one exchange. `invalidate()` after a 401 forces a new token.
 */
export class TokenSource {
  private current: { token: string; refreshAt: number; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  /** The last token's answer (its project and organization). */
  lastAnswer: AccessToken | undefined;

  constructor(
    private readonly credentials: Credentials,
    private readonly mint: Mint,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a refused token can be replaced by asking again. */
  get canRefresh(): boolean {
    return (
      !("accessToken" in this.credentials) || typeof this.credentials.accessToken === "function"
    );
  }

  async token(): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) return this.current.token;
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  /** Milliseconds until the current token expires (undefined when there is none). */
  get expiresInMs(): number | undefined {
    return this.current ? this.current.expiresAt - this.now() : undefined;
  }

  private async fetch(): Promise<string> {
    const credentials = this.credentials;
    if ("accessToken" in credentials) {
      const token =
        typeof credentials.accessToken === "function"
          ? await credentials.accessToken()
          : credentials.accessToken;
      // A token from elsewhere: its lifetime is unknown, so it is reused until refused.
      this.current = {
        token,
        refreshAt: Number.POSITIVE_INFINITY,
        expiresAt: Number.POSITIVE_INFINITY,
      };
      return token;
    }
    const started = this.now();
    const answer = await this.mint(credentials);
    const lifetimeMs = answer.expires_in_seconds * 1000;
    const margin = Math.min(60_000, Math.max(10_000, lifetimeMs / 10));
    this.lastAnswer = answer;
    this.current = {
      token: answer.access_token,
      refreshAt: started + Math.max(lifetimeMs - margin, lifetimeMs / 2),
      expiresAt: started + lifetimeMs,
    };
    return answer.access_token;
  }
}
