/**
 * Does a credential id that exists answer in another time than one that does not? (run on
 * demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/credential-lookup.bench.ts [calls per kind, default 10000]
 *
 * Straight to the auth service over gRPC (mutual TLS, as the gateway), no HTTP in between:
 * MintAccessToken with the legacy pair form, a known api_key_id with a wrong secret vs an unknown
 * id with a secret of the same shape, interleaved in blocks of 100 so drift hits both; the
 * failure limit is lifted for the run. Prints medians, their difference and ratio, and the
 * spread of block medians (how much noise any difference has to beat).
 */

import { AuthService } from "@movement-detection/proto/auth/v1";
import { newId } from "@movement-detection/shared/ids";
import { createProjectWithKey } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { workloadClient } from "../../test/support/workloads.js";

const CALLS = Number(process.argv[2] ?? 10_000);
const BLOCK = 100;

const system = await startTestSystem({
  env: { LOG_LEVEL: "warn" },
  serviceEnv: { auth: { AUTH_FAILURE_LIMIT: "1000000" } },
});
try {
  const project = await createProjectWithKey(system, { name: "timing" });
  const client = workloadClient(system, AuthService, "gateway");
  const wrongSecret = `msk_${"A".repeat(43)}`;
  const time = async (apiKeyId: string) => {
    const started = process.hrtime.bigint();
    await client
      .mintAccessToken({ apiKeyId, apiKeySecret: wrongSecret, clientAddress: "bench" })
      .then(
        () => {
          throw new Error("a wrong secret minted a token");
        },
        () => undefined,
      );
    return Number(process.hrtime.bigint() - started) / 1e3; // microseconds
  };
  for (let i = 0; i < 500; i += 1) await time(i % 2 ? project.apiKeyId : newId()); // warm-up
  const known: number[] = [];
  const unknown: number[] = [];
  const blockDiffs: number[] = [];
  for (let done = 0; done < CALLS; done += BLOCK) {
    const k: number[] = [];
    const u: number[] = [];
    for (let i = 0; i < BLOCK; i += 1) {
      k.push(await time(project.apiKeyId));
      u.push(await time(newId()));
    }
    known.push(...k);
    unknown.push(...u);
    blockDiffs.push(median(k) - median(u));
  }
  const [mk, mu] = [median(known), median(unknown)];
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`\ncredential lookup, ${known.length} calls each, interleaved (medians)`);
  out(`  known id, wrong secret     ${mk.toFixed(1)} us`);
  out(`  unknown id                 ${mu.toFixed(1)} us`);
  out(`  difference                 ${(mk - mu).toFixed(1)} us (ratio ${(mk / mu).toFixed(4)})`);
  const sorted = [...blockDiffs].sort((a, b) => a - b);
  out(
    `  block medians, known-unknown: p10 ${sorted[Math.floor(sorted.length * 0.1)].toFixed(1)} us, p50 ${median(blockDiffs).toFixed(1)} us, p90 ${sorted[Math.floor(sorted.length * 0.9)].toFixed(1)} us`,
  );
} finally {
  await system.stop();
}
