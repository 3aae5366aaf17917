/**
 * The token exchange's gateway side with the libraries only (exchange-floor.bench.ts starts it):
 * Koa and @koa/router over HTTP/1.1, the JSON body read and parsed, one call to auth through the
 * services' internal transport (connect-node, Connect protocol, HTTP/2, mutual TLS), the JSON
 * answer. No validation, rate limiting, tracing, access log or metrics.
 */

import { createClient } from "@connectrpc/connect";
import Router from "@koa/router";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { createInternalTransport } from "@movement-detection/shared/security";
import Koa from "koa";
import { floorIdentity } from "../../support/floor-identity.js";

const authUrl = process.env.FLOOR_AUTH_URL;
if (!authUrl) throw new Error("FLOOR_AUTH_URL is required");
const auth = createClient(
  AuthService,
  createInternalTransport(floorIdentity("gateway"), {
    baseUrl: authUrl,
    expected: "auth",
    timeoutMs: 10_000,
  }),
);

async function readJson(request: NodeJS.ReadableStream): Promise<{ api_key?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const router = new Router();
router.post("/api/auth/access-tokens", async (ctx) => {
  const body = await readJson(ctx.req);
  const minted = await auth.mintAccessToken({ apiKey: body.api_key });
  ctx.body = {
    access_token: minted.accessToken,
    token_type: minted.tokenType,
    expires_in: minted.expiresInSeconds,
  };
});
const app = new Koa();
app.use(router.routes());
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
