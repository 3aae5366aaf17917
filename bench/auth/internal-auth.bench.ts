/**
 * What internal authentication costs a cheap public route (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/internal-auth.bench.ts
 *
 * Two systems in the same run, loaded in turn (rounds alternated so drift hits both):
 * - mtls: the default, every internal call mutual TLS 1.3 with workload certificates, the user's
 *   access token forwarded and verified again by the called service;
 * - h2c: INTERNAL_TRANSPORT=h2c, plaintext HTTP/2, identities asserted (the user's token is still
 *   forwarded and verified: that check does not depend on the transport).
 * Route: GET /api/projects/{id} with a bearer token: the gateway verifies it, calls auth's
 * GetProject forwarding it, auth verifies it and reads the project. That is one internal call per
 * request, the cheapest authenticated route that makes one. Plus, in process, what the services'
 * verification of a forwarded token costs (first sight: signature; later: the verified-token
 * cache), against the time of one request. autocannon, 10 connections, 5 s per round, 3 rounds.
 */

import { createTokenVerifier, DEFAULT_TOKEN_ISSUER } from "@movement-detection/shared/tokens";
import type { JSONWebKeySet } from "jose";
import { authAdminClient, createProjectWithToken } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem, type TestSystem } from "../../test/support/system.js";
import { load, opsPerSecond } from "../support/http-load.js";

const ROUNDS = 3;
const SECONDS = 5;
const quiet = { LOG_LEVEL: "warn" };

const mtls = await startTestSystem({ env: quiet, startTimeoutMs: 120_000 });
let h2c: TestSystem | undefined;
try {
  h2c = await startTestSystem({
    env: { ...quiet, INTERNAL_TRANSPORT: "h2c" },
    startTimeoutMs: 120_000,
  });
  const target = async (system: TestSystem) => {
    const project = await createProjectWithToken(system, { name: "bench" });
    return {
      url: `${system.gatewayUrl}/api/projects/${project.projectId}`,
      headers: { authorization: `Bearer ${project.token}` },
      token: project.token,
    };
  };
  const secure = await target(mtls);
  const plain = await target(h2c);
  const run = async (t: { url: string; headers: Record<string, string> }) => {
    const result = await load({
      url: t.url,
      connections: 10,
      seconds: SECONDS,
      headers: t.headers,
    });
    if (result.failed > 0) throw new Error(`${result.failed} failed requests to ${t.url}`);
    return result;
  };
  await run(plain);
  await run(secure);

  const fetchJwks = async () =>
    JSON.parse((await authAdminClient(mtls).getJwks({})).jwksJson) as JSONWebKeySet;
  const cached = createTokenVerifier({ issuer: DEFAULT_TOKEN_ISSUER, fetchJwks });
  const cold = createTokenVerifier({ issuer: DEFAULT_TOKEN_ISSUER, fetchJwks, cacheSize: 0 });
  await cached.verifyAccessToken(secure.token);
  await cold.verifyAccessToken(secure.token);

  const rows = { plain: [] as number[], secure: [] as number[], plainP50: [] as number[] };
  const securedP50: number[] = [];
  const warm: number[] = [];
  const first: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const a = await run(plain);
    const b = await run(secure);
    rows.plain.push(a.requestsPerSecond);
    rows.plainP50.push(a.p50Ms);
    rows.secure.push(b.requestsPerSecond);
    securedP50.push(b.p50Ms);
    warm.push(await opsPerSecond(() => cached.verifyAccessToken(secure.token), 1000));
    first.push(await opsPerSecond(() => cold.verifyAccessToken(secure.token), 1000));
  }
  const [p, s] = [median(rows.plain), median(rows.secure)];
  const requestUs = 1e6 / p;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out("\ninternal authentication on GET /api/projects/{id} (median of 3 rounds)");
  out(
    `  h2c  (identities asserted)   ${p.toFixed(0)} req/s, p50 ${median(rows.plainP50).toFixed(1)} ms`,
  );
  out(
    `  mtls (workload certificates) ${s.toFixed(0)} req/s, p50 ${median(securedP50).toFixed(1)} ms`,
  );
  out(
    `  mtls / h2c throughput        ${((s / p) * 100).toFixed(1)} % (cost ${(((p - s) / p) * 100).toFixed(1)} %)`,
  );
  out(
    `  forwarded token, verified by the service: first sight ${(1e6 / median(first)).toFixed(1)} us, reused ${(1e6 / median(warm)).toFixed(2)} us`,
  );
  out(
    `  as a share of one h2c request (${requestUs.toFixed(0)} us of the whole system): first ${((1e6 / median(first) / requestUs) * 100).toFixed(1)} %, reused ${((1e6 / median(warm) / requestUs) * 100).toFixed(2)} %`,
  );
} finally {
  await h2c?.stop();
  await mtls.stop();
}
