/**
 * Token minting throughput (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/token-mint.bench.ts
 *
 * The whole system (test harness, embedded store) on this machine. Three figures, each the median
 * of 3 rounds after a warm-up, in the same run:
 * - signing alone: jose SignJWT with an Ed25519 key in this process (the floor);
 * - MintAccessToken over gRPC (8 concurrent callers): credential lookup by hash, project check,
 *   signing;
 * - POST /api/auth/access-tokens through the gateway (autocannon, 10 connections).
 */
import { generateKeyPair, SignJWT } from "jose";
import { authAdminClient, createProjectWithKey } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { load, opsPerSecond } from "../support/http-load.js";

const ROUNDS = 3;
const SECONDS = 5;

const system = await startTestSystem({ env: { LOG_LEVEL: "info" } });
try {
  const project = await createProjectWithKey(system, { name: "bench" });
  const client = authAdminClient(system);

  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const sign = () =>
    new SignJWT({ scope: "movespecs:read", org_id: "o", project_id: "p" })
      .setProtectedHeader({ alg: "EdDSA", kid: "k", typ: "at+jwt" })
      .setIssuer("i")
      .setAudience("a")
      .setSubject("s")
      .setJti("j")
      .setIssuedAt()
      .setExpirationTime("15m")
      .sign(privateKey);

  const grpcRound = async (seconds: number) => {
    const deadline = performance.now() + seconds * 1000;
    let count = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < deadline) {
          await client.mintAccessToken({ apiKey: project.apiKey, clientAddress: "bench" });
          count += 1;
        }
      }),
    );
    return count / seconds;
  };
  const httpRound = (seconds: number) =>
    load({
      url: `${system.gatewayUrl}/api/auth/access-tokens`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: project.apiKey }),
      connections: 10,
      seconds,
    });

  await opsPerSecond(sign, 500);
  await grpcRound(1);
  await httpRound(1);
  const signing: number[] = [];
  const grpc: number[] = [];
  const http: number[] = [];
  const httpP50: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    signing.push(await opsPerSecond(sign, 2000));
    grpc.push(await grpcRound(SECONDS));
    const result = await httpRound(SECONDS);
    if (result.failed > 0) throw new Error(`${result.failed} failed token requests`);
    http.push(result.requestsPerSecond);
    httpP50.push(result.p50Ms);
  }
  const rows = [
    ["signing alone (in process, 1 caller)", median(signing)],
    ["MintAccessToken over gRPC (8 callers)", median(grpc)],
    ["POST /api/auth/access-tokens (10 connections)", median(http)],
  ] as const;
  process.stdout.write("\ntoken minting, tokens per second (median of 3 rounds)\n");
  for (const [name, value] of rows)
    process.stdout.write(`  ${name.padEnd(48)} ${value.toFixed(0)}\n`);
  process.stdout.write(`  HTTP p50 latency: ${median(httpP50).toFixed(1)} ms\n`);
} finally {
  await system.stop();
}
