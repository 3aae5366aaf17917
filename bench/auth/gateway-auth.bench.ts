/**
 * What authentication costs a gateway request (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/gateway-auth.bench.ts
 *
 * Same run, same system, rounds alternated (anonymous, authenticated, ...) so drift hits both:
 * - GET /api/movespecs?limit=1 anonymous vs with a valid bearer token: the same route and work,
 *   plus local verification (signature, claims; keys cached) when the token is present;
 * - GET /api/health (the cheapest route: no service call) as the cheap-route baseline, and the
 *   verifier alone in process, giving what verification would add to a route that cheap: for a
 *   token's first use (signature checked) and for a token reused (the verified-token cache).
 * autocannon, 10 keep-alive connections, 5 s per round, 3 rounds, medians.
 */

import { createTokenVerifier, DEFAULT_TOKEN_ISSUER } from "@movement-detection/shared/tokens";
import type { JSONWebKeySet } from "jose";
import { authAdminClient, createProjectWithKey, mintAccessToken } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { load, opsPerSecond } from "../support/http-load.js";

const ROUNDS = 3;
const SECONDS = 5;

const system = await startTestSystem({ env: { LOG_LEVEL: "info" } });
try {
  const project = await createProjectWithKey(system, { name: "bench" });
  const token = await mintAccessToken(system, { apiKey: project.apiKey });
  const listing = `${system.gatewayUrl}/api/movespecs?limit=1`;
  const health = `${system.gatewayUrl}/api/health`;
  const run = async (url: string, authorized: boolean) => {
    const result = await load({
      url,
      connections: 10,
      seconds: SECONDS,
      headers: authorized ? { authorization: `Bearer ${token}` } : {},
    });
    if (result.failed > 0) throw new Error(`${result.failed} failed requests to ${url}`);
    return result;
  };

  const fetchJwks = async () =>
    JSON.parse((await authAdminClient(system).getJwks({})).jwksJson) as JSONWebKeySet;
  // As the gateway runs it (verified tokens remembered) and cold (every signature checked).
  const verifier = createTokenVerifier({ issuer: DEFAULT_TOKEN_ISSUER, fetchJwks });
  const cold = createTokenVerifier({ issuer: DEFAULT_TOKEN_ISSUER, fetchJwks, cacheSize: 0 });
  await verifier.verifyAccessToken(token);
  await cold.verifyAccessToken(token);

  await run(listing, false);
  await run(listing, true);
  const anonymous: number[] = [];
  const authenticated: number[] = [];
  const anonymousP50: number[] = [];
  const authenticatedP50: number[] = [];
  const healthRps: number[] = [];
  const verifies: number[] = [];
  const coldVerifies: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const a = await run(listing, false);
    const b = await run(listing, true);
    anonymous.push(a.requestsPerSecond);
    authenticated.push(b.requestsPerSecond);
    anonymousP50.push(a.p50Ms);
    authenticatedP50.push(b.p50Ms);
    healthRps.push((await run(health, false)).requestsPerSecond);
    verifies.push(await opsPerSecond(() => verifier.verifyAccessToken(token), 1000));
    coldVerifies.push(await opsPerSecond(() => cold.verifyAccessToken(token), 1000));
  }
  const [anon, auth] = [median(anonymous), median(authenticated)];
  const verifyUs = 1e6 / median(verifies);
  const coldUs = 1e6 / median(coldVerifies);
  const healthUs = 1e6 / median(healthRps); // gateway CPU per request at saturation (1 process)
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out("\nauthentication cost per gateway request (median of 3 rounds)");
  out(
    `  GET /api/movespecs?limit=1 anonymous      ${anon.toFixed(0)} req/s, p50 ${median(anonymousP50).toFixed(1)} ms`,
  );
  out(
    `  GET /api/movespecs?limit=1 bearer token   ${auth.toFixed(0)} req/s, p50 ${median(authenticatedP50).toFixed(1)} ms`,
  );
  out(`  throughput cost of authentication         ${(((anon - auth) / anon) * 100).toFixed(1)} %`);
  out(
    `  verifyAccessToken, signature checked     ${median(coldVerifies).toFixed(0)} /s (${coldUs.toFixed(1)} us each)`,
  );
  out(
    `  verifyAccessToken, token seen before      ${median(verifies).toFixed(0)} /s (${verifyUs.toFixed(1)} us each)`,
  );
  out(
    `  GET /api/health                           ${median(healthRps).toFixed(0)} req/s (${healthUs.toFixed(0)} us each)`,
  );
  out(`  added to the cheapest route, first use    +${((coldUs / healthUs) * 100).toFixed(1)} %`);
  out(`  added to the cheapest route, reused token +${((verifyUs / healthUs) * 100).toFixed(1)} %`);
} finally {
  await system.stop();
}
