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
 *
 * Baseline in the same run: the same calls with the gRPC protocol (what createInternalTransport
 * used before it spoke the Connect protocol), over both transports; and the floor under any RPC
 * library here: node:http2 alone over h2c, a POST of the request's protobuf bytes answered with
 * the response's (no connect, no interceptor, no token check), with the same concurrency; between
 * the two, Connect over h2c without the authorization interceptor (what the token check costs).
 */
import { mkdtemp, rm } from "node:fs/promises";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  AuthService,
  GetProjectRequestSchema,
  GetProjectResponseSchema,
} from "@movement-detection/proto/auth/v1";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import { createLogger } from "@movement-detection/shared/logging";
import {
  createGrpcServer,
  createHealthService,
  HealthState,
} from "@movement-detection/shared/runtime";
import type { InternalSecurity, Workload } from "@movement-detection/shared/security";
import {
  ASSERTED_WORKLOAD_HEADER,
  authorizationInterceptor,
  callerOf,
  createInternalTransport,
  type InternalIdentity,
  loadInternalIdentity,
  onBehalfOf,
} from "@movement-detection/shared/security";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  createTokenVerifier,
  DEFAULT_TOKEN_ISSUER,
} from "@movement-detection/shared/tokens";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";
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

type Protocol = "connect" | "grpc";

/** createInternalTransport as it was with the gRPC protocol: the baseline. */
function grpcTransport(identity: InternalIdentity, baseUrl: string): Transport {
  return createGrpcTransport({
    baseUrl,
    defaultTimeoutMs: 10_000,
    acceptCompression: [],
    interceptors: identity.tls
      ? []
      : [
          (next) => (request) => {
            request.header.set(ASSERTED_WORKLOAD_HEADER, identity.security.workload);
            return next(request);
          },
        ],
    nodeOptions: identity.tls?.clientOptions("auth"),
  });
}

/** `authorized: false` leaves out the authorization interceptor (no token verified): connect alone. */
async function endpoint(transport: "mtls" | "h2c", protocol: Protocol, authorized = true) {
  const verifier = createTokenVerifier({
    issuer: DEFAULT_TOKEN_ISSUER,
    fetchJwks: async () => ({ keys: [jwk] }),
  });
  const server = createGrpcServer({
    interceptors: authorized
      ? [authorizationInterceptor({ logger, userTokens: () => verifier })]
      : [],
    shutdownSignal: new AbortController().signal,
    identity: loadInternalIdentity(security(transport, "auth")),
    alwaysOn: (router) => router.service(Health, createHealthService(new HealthState([]))),
    services: [AuthService],
  });
  server.serve((router) =>
    router.service(AuthService, {
      getProject: (request, context) => ({
        project: {
          projectId: authorized ? callerOf(context).projectId : "",
          name: request.projectId,
        },
      }),
    }),
  );
  const port = await server.listen(0, "127.0.0.1");
  const scheme = transport === "mtls" ? "https" : "http";
  const baseUrl = `${scheme}://127.0.0.1:${port}`;
  const identity = loadInternalIdentity(security(transport, "gateway"));
  const client = createClient(
    AuthService,
    protocol === "grpc"
      ? grpcTransport(identity, baseUrl)
      : createInternalTransport(identity, { baseUrl, expected: "auth", timeoutMs: 10_000 }),
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

/** The same exchange of bytes with node:http2 alone: what connect-node adds is the difference. */
async function rawHttp2Endpoint() {
  const request = toBinary(
    GetProjectRequestSchema,
    create(GetProjectRequestSchema, { projectId: "p" }),
  );
  const response = toBinary(
    GetProjectResponseSchema,
    create(GetProjectResponseSchema, {
      project: { projectId: "0195a2b4-7c1d-7000-8000-000000000001", name: "p" },
    }),
  );
  const server = http2.createServer();
  server.on("stream", (stream) => {
    stream.on("data", () => undefined);
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": "application/proto" });
      stream.end(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const session = http2.connect(`http://127.0.0.1:${port}`);
  const call = () =>
    new Promise<void>((resolve, reject) => {
      const stream = session.request({
        ":method": "POST",
        ":path": "/auth.v1.AuthService/GetProject",
        "content-type": "application/proto",
      });
      stream.on("data", () => undefined);
      stream.on("end", resolve);
      stream.on("error", reject);
      stream.end(request);
    });
  const block = async (): Promise<number> => {
    const started = performance.now();
    let left = BLOCK;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await call();
      }),
    );
    return (BLOCK / (performance.now() - started)) * 1000;
  };
  return {
    block,
    close: async () => {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const variants = {
  "h2c, Connect": await endpoint("h2c", "connect"),
  "mtls, Connect": await endpoint("mtls", "connect"),
  "h2c, gRPC (before)": await endpoint("h2c", "grpc"),
  "mtls, gRPC (before)": await endpoint("mtls", "grpc"),
  "h2c, Connect, no token check": await endpoint("h2c", "connect", false),
  "h2c, node:http2 only": await rawHttp2Endpoint(),
};
type Variant = keyof typeof variants;
try {
  const rates = new Map<Variant, number[]>();
  for (const [name, variant] of Object.entries(variants) as [
    Variant,
    (typeof variants)[Variant],
  ][]) {
    await variant.block();
    rates.set(name, []);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, variant] of Object.entries(variants) as [
      Variant,
      (typeof variants)[Variant],
    ][]) {
      rates.get(name)?.push(await variant.block());
    }
  }
  const rate = (name: Variant) => median(rates.get(name) ?? []);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`\none internal hop, GetProject with a forwarded user token (median of ${ROUNDS} blocks)`);
  for (const name of Object.keys(variants) as Variant[]) {
    const r = rate(name);
    out(`  ${name.padEnd(28)} ${r.toFixed(0)} calls/s (${(1e6 / r).toFixed(0)} us each)`);
  }
  const ratio = (a: Variant, b: Variant) =>
    `${((rate(a) / rate(b)) * 100).toFixed(1)} %  (${(1e6 / rate(a) - 1e6 / rate(b)).toFixed(1)} us per call)`;
  out(`  mtls / h2c, Connect        ${ratio("mtls, Connect", "h2c, Connect")}`);
  out(`  Connect / gRPC, h2c        ${ratio("h2c, Connect", "h2c, gRPC (before)")}`);
  out(`  Connect / gRPC, mtls       ${ratio("mtls, Connect", "mtls, gRPC (before)")}`);
  out(`  token check, h2c           ${ratio("h2c, Connect", "h2c, Connect, no token check")}`);
  out(
    `  Connect / node:http2, h2c  ${ratio("h2c, Connect, no token check", "h2c, node:http2 only")}`,
  );
} finally {
  for (const variant of Object.values(variants)) await variant.close();
  await rm(dir, { recursive: true, force: true });
}
