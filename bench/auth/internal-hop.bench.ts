/**
 * The internal hop alone, in one process (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/internal-hop.bench.ts
 *
 * What the system-level benchmark (internal-auth.bench.ts) measures end to end, without the
 * gateway, the database or other processes competing for the cores: one gRPC server built as the
 * services build theirs (createGrpcServer, the authorization interceptor, auth.v1 GetProject
 * answered from memory for the caller the forwarded token proves), called by a client built as
 * the gateway builds its clients (createInternalTransport, the user's token forwarded), once over
 * mutual TLS 1.3 and once over h2c. Calls run 4 at a time on one HTTP/2 connection, in
 * alternating blocks of 2,000; medians of the blocks' calls per second, and their ratio.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";
import { AuthService } from "../../proto/gen/auth/v1/auth_pb.js";
import { Health } from "../../proto/gen/grpc/health/v1/health_pb.js";
import { createLogger } from "../../services/shared/logging/logger.js";
import { createGrpcServer } from "../../services/shared/runtime/grpc-server.js";
import { createHealthService, HealthState } from "../../services/shared/runtime/health.js";
import { authorizationInterceptor } from "../../services/shared/security/authorization-interceptor.js";
import { callerOf, onBehalfOf } from "../../services/shared/security/caller.js";
import type { InternalSecurity } from "../../services/shared/security/internal-security-config.js";
import {
  createInternalTransport,
  loadInternalIdentity,
} from "../../services/shared/security/internal-transport.js";
import type { Workload } from "../../services/shared/security/workloads.js";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  createTokenVerifier,
  DEFAULT_TOKEN_ISSUER,
} from "../../services/shared/tokens/index.js";
import { median } from "../../test/support/statistics.js";

const BLOCK = 2000;
const ROUNDS = 7;
const CONCURRENCY = 4;

const dir = await mkdtemp(join(tmpdir(), "mds-hop-"));
const pki = await ensureLocalPki({ dir });
const logger = createLogger({ service: "bench", level: "silent" });

// A user token, and the verifier the service would hold (JWKS known, as after its first fetch).
const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
const kid = "bench-key";
const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "EdDSA", use: "sig" };
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({
  scope: "movespecs:read",
  client_id: "c",
  cred_type: "api_key",
  org_id: "o",
  project_id: "0195a2b4-7c1d-7000-8000-000000000001",
})
  .setProtectedHeader({ alg: "EdDSA", kid, typ: ACCESS_TOKEN_TYPE })
  .setIssuer(DEFAULT_TOKEN_ISSUER)
  .setAudience(ACCESS_TOKEN_AUDIENCE)
  .setSubject("s")
  .setJti("j")
  .setIssuedAt(now)
  .setExpirationTime(now + 3600)
  .sign(privateKey);

const security = (transport: "mtls" | "h2c", workload: Workload): InternalSecurity => ({
  transport,
  workload,
  trustDomain: pki.trustDomain,
  tlsDir: pki.tlsDirOf(workload),
  reloadSeconds: 3600,
});

async function endpoint(transport: "mtls" | "h2c") {
  const verifier = createTokenVerifier({
    issuer: DEFAULT_TOKEN_ISSUER,
    fetchJwks: async () => ({ keys: [jwk] }),
  });
  const server = createGrpcServer({
    interceptors: [authorizationInterceptor({ logger, userTokens: () => verifier })],
    shutdownSignal: new AbortController().signal,
    identity: loadInternalIdentity(security(transport, "auth")),
    alwaysOn: (router) => router.service(Health, createHealthService(new HealthState([]))),
    services: [AuthService],
  });
  server.serve((router) =>
    router.service(AuthService, {
      getProject: (request, context) => ({
        project: { projectId: callerOf(context).projectId, name: request.projectId },
      }),
    }),
  );
  const port = await server.listen(0, "127.0.0.1");
  const scheme = transport === "mtls" ? "https" : "http";
  const client = createClient(
    AuthService,
    createInternalTransport(loadInternalIdentity(security(transport, "gateway")), {
      baseUrl: `${scheme}://127.0.0.1:${port}`,
      expected: "auth",
      timeoutMs: 10_000,
    }),
  );
  const user = onBehalfOf({ accessToken: token });
  const block = async (): Promise<number> => {
    const started = performance.now();
    let left = BLOCK;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await client.getProject({ projectId: "p" }, user);
      }),
    );
    return (BLOCK / (performance.now() - started)) * 1000;
  };
  return { block, close: () => server.close(0) };
}

const plain = await endpoint("h2c");
const secure = await endpoint("mtls");
try {
  await plain.block();
  await secure.block();
  const rates = { h2c: [] as number[], mtls: [] as number[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    rates.h2c.push(await plain.block());
    rates.mtls.push(await secure.block());
  }
  const [p, s] = [median(rates.h2c), median(rates.mtls)];
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`\none internal hop, GetProject with a forwarded user token (median of ${ROUNDS} blocks)`);
  out(`  h2c   ${p.toFixed(0)} calls/s (${(1e6 / p).toFixed(0)} us each)`);
  out(`  mtls  ${s.toFixed(0)} calls/s (${(1e6 / s).toFixed(0)} us each)`);
  out(
    `  mtls / h2c  ${((s / p) * 100).toFixed(1)} %  (+${(1e6 / s - 1e6 / p).toFixed(1)} us per call)`,
  );
} finally {
  await plain.close();
  await secure.close();
  await rm(dir, { recursive: true, force: true });
}
