/**
 * A hostile internal caller, for every method of every service: real clients (connect-node,
 * @grpc/grpc-js, `buf curl`) against the real processes, each proving (or failing to prove) a
 * workload with a certificate. For each method: no certificate, a certificate of another CA, every
 * workload the access table does not name, and, for the workload it names, a forged, foreign,
 * missing or under-scoped user token. Then the allowed caller, to show the door opens for it.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect as connectHttp2 } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type DescMethod, type DescService, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import {
  CreateSessionRequestSchema,
  DetectionService,
  type SessionMode,
} from "@movement-detection/proto/detection/v1";
import { Health, HealthCheckRequestSchema } from "@movement-detection/proto/grpc/health/v1";
import { errorInfo } from "@movement-detection/shared/errors";
import {
  MAX_CONCURRENT_STREAMS,
  MAX_REQUEST_BYTES,
  MAX_TIMEOUT_MS,
} from "@movement-detection/shared/runtime";
import {
  ACCESS_POLICY,
  type MethodRule,
  WORKLOADS,
  type Workload,
} from "@movement-detection/shared/security";
import { expect } from "chai";
import type { JSONWebKeySet } from "jose";
import WebSocket from "ws";
import { ensureLocalPki, type LocalPki } from "../../deploy/local/local-pki.js";
import { forgeAccessToken, generateTestKey, tamperPayload } from "../auth/token-forge.js";
import { authAdminClient, createProjectWithKey, mintAccessToken } from "../support/auth.js";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { tlsFilesOf, workloadTransport } from "../support/workloads.js";

type ServiceName = "auth" | "catalogue" | "authoring" | "detection";
const SERVICES: readonly { name: ServiceName; desc: DescService }[] = [
  { name: "auth", desc: AuthService },
  { name: "catalogue", desc: CatalogueService },
  { name: "authoring", desc: AuthoringService },
  { name: "detection", desc: DetectionService },
];
/** Health is served by every service; once against each is enough to show the rule. */
const EVERY_METHOD = [
  ...SERVICES.flatMap(({ name, desc }) => desc.methods.map((method) => ({ name, desc, method }))),
  ...SERVICES.flatMap(({ name }) =>
    Health.methods.map((method) => ({ name, desc: Health, method })),
  ),
];

/** Reasons only the authorization interceptor raises: past it, none of them may appear. */
const GATE_REASONS = new Set([
  "WORKLOAD_UNAUTHENTICATED",
  "WORKLOAD_NOT_ALLOWED",
  "USER_TOKEN_NOT_ACCEPTED",
  "TOKEN_MISSING",
  "TOKEN_INVALID",
  "TOKEN_EXPIRED",
  "SCOPE_MISSING",
]);

function ruleOf(desc: DescService, method: DescMethod): MethodRule {
  const rule = ACCESS_POLICY[desc.typeName]?.[method.name];
  if (!rule) throw new Error(`no access rule for ${desc.typeName}/${method.name}`);
  return rule;
}

describe("internal calls: workload identity and per-method authorisation (hostile callers)", function () {
  this.timeout(120_000);
  let system: TestSystem;
  let stranger: LocalPki;
  let strangerDir: string;
  /** A token with every scope, one with none that the methods ask for, forged ones. */
  const tokens = {} as Record<"valid" | "unscoped" | "foreignKey" | "tampered", string>;
  /** The project of the token with every scope. */
  let projectId: string;

  before(async () => {
    system = await startTestSystem({
      // Failures through the gateway count per client address; a low limit keeps the test short.
      serviceEnv: { auth: { AUTH_FAILURE_LIMIT: "5", AUTH_FAILURE_BLOCK_SECONDS: "60" } },
    });
    // Another CA that issues perfectly shaped certificates of the same trust domain.
    strangerDir = await mkdtemp(join(tmpdir(), "mds-stranger-pki-"));
    stranger = await ensureLocalPki({ dir: strangerDir, trustDomain: system.pki?.trustDomain });
    const full = await createProjectWithKey(system);
    const narrow = await createProjectWithKey(system, { scopes: ["movespecs:read"] });
    projectId = full.projectId;
    tokens.valid = await mintAccessToken(system, { apiKey: full.apiKey });
    tokens.unscoped = await mintAccessToken(system, { apiKey: narrow.apiKey });
    tokens.tampered = tamperPayload(tokens.valid, { project_id: narrow.projectId });
    const jwks = JSON.parse((await authAdminClient(system).getJwks({})).jwksJson) as JSONWebKeySet;
    // Signed by a key the system never published, under the kid of the one it did.
    tokens.foreignKey = await forgeAccessToken(await generateTestKey(jwks.keys[0].kid as string), {
      projectId: full.projectId,
      organizationId: full.organizationId,
    });
  });

  after(async () => {
    await system?.stop();
    await rm(strangerDir, { recursive: true, force: true });
  });

  /**
   * A raw gRPC call of `target` through @grpc/grpc-js over TLS that trusts this system's CA but
   * presents no certificate, or the stranger CA's `gateway` certificate.
   */
  async function callWithout(
    target: (typeof EVERY_METHOD)[number],
    who: "none" | "stranger",
  ): Promise<{ code: Code | "ok"; reason?: string }> {
    const ca = tlsFilesOf(system, "operator").ca;
    const credentials =
      who === "none"
        ? grpc.credentials.createSsl(ca)
        : grpc.credentials.createSsl(
            ca,
            await readFile(join(stranger.tlsDirOf("gateway"), "tls.key")),
            await readFile(join(stranger.tlsDirOf("gateway"), "tls.crt")),
          );
    const client = new grpc.Client(new URL(system.services[target.name].grpcUrl).host, credentials);
    const path = `/${target.desc.typeName}/${target.method.name}`;
    const identity = (bytes: Buffer) => bytes;
    const empty = () => Buffer.alloc(0);
    try {
      const error = await new Promise<grpc.ServiceError | null>((resolve) => {
        if (target.method.methodKind === "server_streaming") {
          const stream = client.makeServerStreamRequest(path, empty, identity, {});
          stream.once("data", () => {
            stream.cancel();
            resolve(null);
          });
          stream.once("error", (error: grpc.ServiceError) => resolve(error));
        } else {
          client.makeUnaryRequest(path, empty, identity, {}, (error) => resolve(error));
        }
      });
      return error ? { code: error.code as number as Code } : { code: "ok" };
    } finally {
      client.close();
    }
  }

  /** Calls `method` as `workload` (its certificate), for the user `user` when given. */
  async function call(
    target: (typeof EVERY_METHOD)[number],
    workload: Workload,
    user?: string,
  ): Promise<{ code: Code | "ok"; reason?: string }> {
    const url = system.services[target.name].grpcUrl;
    const transport = workloadTransport(system, workload, {
      url,
      expected: target.name,
      user,
      idleMs: 200,
    });
    const client = createClient(target.desc, transport) as unknown as Record<
      string,
      (request: object, options?: object) => unknown
    >;
    const request = {};
    try {
      if (target.method.methodKind === "server_streaming") {
        const abort = new AbortController();
        const stream = client[target.method.localName](request, {
          signal: abort.signal,
        }) as AsyncIterable<unknown>;
        for await (const _ of stream) break;
        abort.abort();
      } else {
        await client[target.method.localName](request);
      }
      return { code: "ok" };
    } catch (error) {
      const info = errorInfo(error);
      return { code: info.code, reason: info.reason };
    }
  }

  it("has a rule for every method of every service, and no rule for a method that does not exist", () => {
    for (const desc of [...SERVICES.map((s) => s.desc), Health]) {
      const documented = Object.keys(ACCESS_POLICY[desc.typeName] ?? {}).sort();
      expect(documented, desc.typeName).to.deep.equal(desc.methods.map((m) => m.name).sort());
      for (const method of desc.methods) {
        for (const caller of ruleOf(desc, method).callers) expect(WORKLOADS).to.include(caller);
      }
    }
  });

  describe("without a certificate of this system's CA", () => {
    for (const target of EVERY_METHOD) {
      it(`${target.desc.typeName}/${target.method.name} (${target.name}): refused, the call never runs`, async () => {
        for (const who of ["none", "stranger"] as const) {
          const outcome = await callWithout(target, who);
          expect(outcome.code, `${who}: ${JSON.stringify(outcome)}`).to.be.oneOf([
            Code.Unavailable,
            Code.Unauthenticated,
          ]);
          expect(outcome.reason).to.equal(undefined);
        }
      });
    }
  });

  describe("a workload the table does not name: PERMISSION_DENIED", () => {
    for (const target of EVERY_METHOD) {
      const rule = ruleOf(target.desc, target.method);
      const intruders = WORKLOADS.filter((w) => !rule.callers.includes(w));
      if (intruders.length === 0) continue;
      it(`${target.desc.typeName}/${target.method.name}: ${intruders.join(", ")}`, async () => {
        for (const intruder of intruders) {
          // Even carrying a valid user token: the workload is checked first.
          const outcome = await call(target, intruder, tokens.valid);
          expect(outcome, intruder).to.deep.equal({
            code: Code.PermissionDenied,
            reason: "WORKLOAD_NOT_ALLOWED",
          });
        }
      });
    }
  });

  describe("the named workload with a forged, foreign, missing or under-scoped user", () => {
    for (const target of EVERY_METHOD) {
      const rule = ruleOf(target.desc, target.method);
      const caller = rule.callers[0];
      it(`${target.desc.typeName}/${target.method.name} as ${caller} (user: ${JSON.stringify(rule.user)})`, async () => {
        const forged = await call(target, caller, tokens.tampered);
        const foreign = await call(target, caller, tokens.foreignKey);
        const garbage = await call(target, caller, "not-a-jwt");
        if (rule.user === "none") {
          // This method acts for nobody: any user token is refused, valid or not.
          for (const outcome of [
            forged,
            foreign,
            garbage,
            await call(target, caller, tokens.valid),
          ]) {
            expect(outcome).to.deep.equal({
              code: Code.InvalidArgument,
              reason: "USER_TOKEN_NOT_ACCEPTED",
            });
          }
          return;
        }
        for (const outcome of [forged, foreign, garbage]) {
          expect(outcome).to.deep.equal({ code: Code.Unauthenticated, reason: "TOKEN_INVALID" });
        }
        const missing = await call(target, caller);
        if (rule.user === "optional") {
          expect(GATE_REASONS.has(String(missing.reason)), JSON.stringify(missing)).to.equal(false);
        } else {
          expect(missing).to.deep.equal({ code: Code.Unauthenticated, reason: "TOKEN_MISSING" });
        }
        if (typeof rule.user === "object" && rule.user.scope !== "movespecs:read") {
          expect(await call(target, caller, tokens.unscoped)).to.deep.equal({
            code: Code.PermissionDenied,
            reason: "SCOPE_MISSING",
          });
        }
      });
    }
  });

  describe("the named workload with a valid user passes the gate", () => {
    for (const target of EVERY_METHOD) {
      const rule = ruleOf(target.desc, target.method);
      // Calls that would change the system for every other test stay out of this loop.
      if (["RotateSigningKey", "ResyncCatalogue"].includes(target.method.name)) continue;
      it(`${target.desc.typeName}/${target.method.name}: every named workload`, async () => {
        for (const caller of rule.callers) {
          const outcome = await call(
            target,
            caller,
            rule.user === "none" ? undefined : tokens.valid,
          );
          // An empty request may be refused by the method itself (FIELD_REQUIRED, NOT_FOUND...),
          // never by the gate.
          expect(
            GATE_REASONS.has(String(outcome.reason)),
            `${caller}: ${JSON.stringify(outcome)}`,
          ).to.equal(false);
          expect(outcome.code).to.not.equal(Code.Unauthenticated);
        }
      });
    }
  });

  describe("other clients", () => {
    /** One unary call with @grpc/grpc-js: the error (null for OK) and its trailers. */
    const grpcJsCall = (
      service: "auth" | "detection",
      path: string,
      request: Buffer,
      workload: Workload,
      options: { metadata?: Record<string, string>; deadline?: number } = {},
    ) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const Client = grpc.makeGenericClientConstructor({}, "Any");
        const files = tlsFilesOf(system, workload);
        const client = new Client(
          new URL(system.services[service].grpcUrl).host,
          grpc.credentials.createSsl(files.ca, files.key, files.cert),
        );
        const metadata = new grpc.Metadata();
        for (const [name, value] of Object.entries(options.metadata ?? {}))
          metadata.set(name, value);
        client.makeUnaryRequest(
          path,
          (bytes: Buffer) => bytes,
          (bytes: Buffer) => bytes,
          request,
          metadata,
          options.deadline === undefined ? {} : { deadline: options.deadline },
          (error) => {
            client.close();
            resolve(error);
          },
        );
      });

    /** Detection's CreateSession as the gateway calls it, for the user of the full token. */
    const createSessionOverGrpc = (fields: { movespecId: string; mode?: SessionMode }) =>
      grpcJsCall(
        "detection",
        "/detection.v1.DetectionService/CreateSession",
        Buffer.from(
          toBinary(
            CreateSessionRequestSchema,
            create(CreateSessionRequestSchema, { projectId, ...fields }),
          ),
        ),
        "gateway",
        { metadata: { authorization: `Bearer ${tokens.valid}` } },
      );

    it("@grpc/grpc-js: an error passed on from another service is a clean status (not its HTTP headers)", async () => {
      // Detection asks authoring, which refuses: its answer's content-length and content-type
      // used to end up in detection's trailers, and grpc-js saw RST_STREAM (INTERNAL).
      const error = await createSessionOverGrpc({ movespecId: randomUUID() });
      expect(error?.code, error?.details).to.equal(grpc.status.NOT_FOUND);
      expect(error?.metadata.get("content-length")).to.deep.equal([]);
      const detail = error?.metadata.get("grpc-status-details-bin")[0] as Buffer;
      expect(detail.toString("latin1")).to.include("MOVESPEC_NOT_FOUND");
    });

    it("@grpc/grpc-js: a session mode outside the enum is INVALID_ARGUMENT (it used to mean live)", async () => {
      const error = await createSessionOverGrpc({
        movespecId: randomUUID(),
        mode: 99 as SessionMode,
      });
      expect(error?.code, error?.details).to.equal(grpc.status.INVALID_ARGUMENT);
    });

    it("@grpc/grpc-js: Health/Check of a 70,000-character name is NOT_FOUND, its name cut in the message", async () => {
      const request = Buffer.from(
        toBinary(
          HealthCheckRequestSchema,
          create(HealthCheckRequestSchema, { service: "x".repeat(70_000) }),
        ),
      );
      const error = await grpcJsCall("auth", "/grpc.health.v1.Health/Check", request, "gateway");
      expect(error?.code, error?.details).to.equal(grpc.status.NOT_FOUND);
      expect(error?.details.length).to.be.below(300);
    });

    it("@grpc/grpc-js: a message of 16 MiB is read; one byte more is RESOURCE_EXHAUSTED, unread", async () => {
      const call = (bytes: number) =>
        grpcJsCall(
          "auth",
          "/auth.v1.AuthService/ListOrganizations",
          Buffer.alloc(bytes, 0),
          "operator",
        );
      // Zero bytes are an empty message (field 0 is invalid: the parse fails, as it should).
      const at = await call(MAX_REQUEST_BYTES);
      expect(at?.code).to.not.equal(grpc.status.RESOURCE_EXHAUSTED);
      const past = await call(MAX_REQUEST_BYTES + 1);
      expect(past?.code, past?.details).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    });

    it("@grpc/grpc-js: a deadline past what a timer holds is INVALID_ARGUMENT, not 1 ms", async () => {
      const call = (ms: number) =>
        grpcJsCall("auth", "/auth.v1.AuthService/ListOrganizations", Buffer.alloc(0), "operator", {
          deadline: Date.now() + ms,
        });
      expect(await call(20 * 24 * 3600 * 1000)).to.equal(null);
      const past = await call(30 * 24 * 3600 * 1000);
      expect(past?.code, past?.details).to.equal(grpc.status.INVALID_ARGUMENT);
    });

    it("raw gRPC: grpc-timeout at the largest whole seconds under MAX_TIMEOUT_MS is served, one second more refused", async () => {
      // Clients cannot be asked for these exactly (their own timers overflow first): raw HTTP/2.
      const files = tlsFilesOf(system, "operator");
      const session = connectHttp2(system.services.auth.grpcUrl, {
        ca: files.ca,
        key: files.key,
        cert: files.cert,
        checkServerIdentity: () => undefined,
      });
      const statusWith = (timeout: string) =>
        new Promise<string>((resolve, reject) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/auth.v1.AuthService/ListOrganizations",
            "content-type": "application/grpc",
            te: "trailers",
            "grpc-timeout": timeout,
          });
          let status = "";
          stream.on("response", (headers) => {
            status = String(headers["grpc-status"] ?? status);
          });
          stream.on("trailers", (trailers) => {
            status = String(trailers["grpc-status"] ?? status);
          });
          stream.on("data", () => undefined);
          stream.on("end", () => resolve(status));
          stream.on("error", reject);
          stream.end(Buffer.alloc(5)); // one empty message, uncompressed
        });
      try {
        const lastServed = Math.floor(MAX_TIMEOUT_MS / 1000);
        expect(await statusWith(`${lastServed}S`)).to.equal(String(grpc.status.OK));
        expect(await statusWith(`${lastServed + 1}S`)).to.equal(
          String(grpc.status.INVALID_ARGUMENT),
        );
      } finally {
        session.close();
      }
    });

    it("HTTP/2: a service's connection allows MAX_CONCURRENT_STREAMS calls in flight (it allowed 2^32 - 1)", async () => {
      const files = tlsFilesOf(system, "operator");
      const session = connectHttp2(system.services.auth.grpcUrl, {
        ca: files.ca,
        key: files.key,
        cert: files.cert,
        checkServerIdentity: () => undefined,
      });
      try {
        const settings = await new Promise<{ maxConcurrentStreams?: number }>((resolve, reject) => {
          session.once("remoteSettings", resolve);
          session.once("error", reject);
        });
        expect(settings.maxConcurrentStreams).to.equal(MAX_CONCURRENT_STREAMS);
      } finally {
        session.close();
      }
    });

    it("@grpc/grpc-js: the operator certificate administers, another workload's does not, none connects nowhere", async () => {
      const Client = grpc.makeGenericClientConstructor({}, "AuthService");
      const address = new URL(system.services.auth.grpcUrl).host;
      const unary = (credentials: grpc.ChannelCredentials) =>
        new Promise<grpc.ServiceError | null>((resolve) => {
          const client = new Client(address, credentials);
          client.makeUnaryRequest(
            "/auth.v1.AuthService/ListOrganizations",
            () => Buffer.alloc(0),
            (bytes: Buffer) => bytes,
            {},
            (error) => {
              client.close();
              resolve(error);
            },
          );
        });
      const files = (w: Workload) => tlsFilesOf(system, w);
      const operator = files("operator");
      expect(await unary(grpc.credentials.createSsl(operator.ca, operator.key, operator.cert))).to
        .be.null;
      const catalogue = files("catalogue");
      const denied = await unary(
        grpc.credentials.createSsl(catalogue.ca, catalogue.key, catalogue.cert),
      );
      expect(denied?.code).to.equal(grpc.status.PERMISSION_DENIED);
      const anonymous = await unary(grpc.credentials.createSsl(operator.ca));
      expect(anonymous?.code).to.equal(grpc.status.UNAVAILABLE);
      const plaintext = await unary(grpc.credentials.createInsecure());
      expect(plaintext?.code).to.equal(grpc.status.UNAVAILABLE);
    });

    it("buf curl: --cert/--key/--cacert of the operator works, of catalogue is denied, without is refused", async function () {
      skipUnderFakedClock(this, "buf");
      const url = `${system.services.auth.grpcUrl}/auth.v1.AuthService/ListOrganizations`;
      const run = (args: string[]) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(
            join(import.meta.dirname, "../../node_modules/.bin/buf"),
            ["curl", "--schema", "proto", "--protocol", "grpc", "-d", "{}", ...args, url],
            { cwd: join(import.meta.dirname, "../..") },
          );
          let out = "";
          let err = "";
          child.stdout.on("data", (chunk) => (out += chunk));
          child.stderr.on("data", (chunk) => (err += chunk));
          child.once("exit", (code) => resolve({ code, out, err }));
        });
      const tls = (w: Workload) => {
        const f = tlsFilesOf(system, w);
        return ["--cacert", f.caPath, "--cert", f.certPath, "--key", f.keyPath];
      };
      const allowed = await run(tls("operator"));
      expect(allowed.code, allowed.err).to.equal(0);
      expect(JSON.parse(allowed.out)).to.have.property("organizations");
      const denied = await run(tls("catalogue"));
      expect(denied.code).to.not.equal(0);
      expect(denied.err).to.match(/permission_denied/);
      const none = await run(["--cacert", tlsFilesOf(system, "operator").caPath]);
      expect(none.code).to.not.equal(0);
      expect(none.out).to.equal("");
    });
  });

  describe("the stream hop (gateway -> detection's stream listener)", () => {
    async function streamPort(): Promise<number> {
      const detection = createClient(
        DetectionService,
        workloadTransport(system, "gateway", {
          url: system.services.detection.grpcUrl,
          expected: "detection",
        }),
      );
      return (await detection.getStreamEndpoint({})).streamPort;
    }

    async function identityOf(who: Workload | "none" | "stranger") {
      const ca = tlsFilesOf(system, "gateway").ca;
      if (who === "none") return { ca };
      if (who === "stranger") {
        return {
          ca,
          cert: await readFile(join(stranger.tlsDirOf("gateway"), "tls.crt")),
          key: await readFile(join(stranger.tlsDirOf("gateway"), "tls.key")),
        };
      }
      return { ca, cert: tlsFilesOf(system, who).cert, key: tlsFilesOf(system, who).key };
    }

    /** The replica's own listener, and what happens to an HTTP/1.1 upgrade there as `who`. */
    async function upgradeAs(who: Workload | "none" | "stranger"): Promise<string> {
      const url = `wss://127.0.0.1:${await streamPort()}/api/detection/sessions/${randomUUID()}/stream`;
      const identity = await identityOf(who);
      return new Promise((resolve) => {
        const ws = new WebSocket(url, identity);
        ws.once("open", () => {
          ws.close();
          resolve("open");
        });
        ws.once("unexpected-response", (_request, response) => {
          resolve(`http ${response.statusCode}`);
          ws.terminate();
        });
        ws.once("error", (error) => resolve(`error ${(error as Error).message}`));
      });
    }

    /**
     * The gateway's way in: an HTTP/2 stream standing for the upgrade (stream-tunnel.ts). The
     * status line the replica writes into the stream's body, or the connection's error.
     */
    async function tunnelAs(who: Workload | "none" | "stranger", method = "POST"): Promise<string> {
      const port = await streamPort();
      const identity = await identityOf(who);
      return new Promise((resolve) => {
        const session = connectHttp2(`https://127.0.0.1:${port}`, {
          ...identity,
          servername: "detection", // SNI may not be an IP address (RFC 6066)
          checkServerIdentity: () => undefined,
        });
        session.on("error", (error) => resolve(`error ${error.message}`));
        let status = 0;
        const stream = session.request({
          ":method": method,
          ":path": `/api/detection/sessions/${randomUUID()}/stream`,
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "sec-websocket-version": "13",
        });
        let body = "";
        stream.on("data", (chunk: Buffer) => {
          body += chunk.toString("latin1");
          if (body.includes("\r\n")) {
            resolve(body.slice(0, body.indexOf("\r\n")));
            session.destroy();
          }
        });
        stream.on("error", (error) => resolve(`error ${error.message}`));
        stream.on("response", (headers) => (status = Number(headers[":status"])));
        stream.on("close", () => resolve(`closed ${status}: ${JSON.stringify(body)}`));
      });
    }

    it("refuses an upgrade without a certificate, or with another CA's, at the handshake", async () => {
      expect(await upgradeAs("none")).to.match(/^error /);
      expect(await upgradeAs("stranger")).to.match(/^error /);
      // TLS 1.3: the client may see its request's stream close before the connection's error.
      expect(await tunnelAs("none")).to.match(/^error |^closed 0: ""$/);
      expect(await tunnelAs("stranger")).to.match(/^error |^closed 0: ""$/);
    });

    it("answers 403 on every HTTP/2 stream but the gateway's, and switches the gateway's to the websocket", async () => {
      for (const workload of WORKLOADS.filter((w) => w !== "gateway")) {
        expect(await tunnelAs(workload), workload).to.equal("HTTP/1.1 403 Forbidden");
      }
      expect(await tunnelAs("gateway")).to.equal("HTTP/1.1 101 Switching Protocols");
    });

    it("answers a stream that does not stand for an upgrade (not POST) with 405 and nothing else", async () => {
      expect(await tunnelAs("gateway", "GET")).to.equal('closed 405: ""');
    });

    it("answers 403 to every workload but the gateway, and upgrades the gateway", async () => {
      for (const workload of WORKLOADS.filter((w) => w !== "gateway")) {
        expect(await upgradeAs(workload), workload).to.equal("http 403");
      }
      expect(await upgradeAs("gateway")).to.equal("open");
    });
  });

  describe("client_address and the failed-credential limit", () => {
    const mint = (workload: Workload, clientAddress: string) =>
      createClient(
        AuthService,
        workloadTransport(system, workload, {
          url: system.services.auth.grpcUrl,
          expected: "auth",
        }),
      )
        .mintAccessToken({ apiKey: `msk_${"x".repeat(43)}`, clientAddress })
        .then(
          () => ({ code: "ok" as const }),
          (error: unknown) => ({
            code: ConnectError.from(error).code,
            reason: errorInfo(error).reason,
          }),
        );

    it("is accepted from the gateway's identity only", async () => {
      expect(await mint("gateway", "198.51.100.7")).to.deep.equal({
        code: Code.Unauthenticated,
        reason: "CREDENTIAL_INVALID",
      });
      expect(await mint("operator", "198.51.100.8")).to.deep.equal({
        code: Code.PermissionDenied,
        reason: "CLIENT_ADDRESS_NOT_ALLOWED",
      });
      for (const workload of ["auth", "catalogue", "authoring", "detection"] as const) {
        expect(await mint(workload, "198.51.100.9")).to.deep.equal({
          code: Code.PermissionDenied,
          reason: "WORKLOAD_NOT_ALLOWED",
        });
      }
    });

    it("an operator without an address is counted as itself: the limit holds", async () => {
      const outcomes = [];
      for (let i = 0; i < 7; i += 1) outcomes.push((await mint("operator", "")).code);
      expect(outcomes.slice(0, 5)).to.deep.equal(Array(5).fill(Code.Unauthenticated));
      expect(outcomes.at(-1)).to.equal(Code.ResourceExhausted);
    });

    it("through the gateway, made-up X-Forwarded-For addresses do not reset the count (429)", async () => {
      const statuses = [];
      for (let i = 0; i < 8; i += 1) {
        const response = await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-forwarded-for": `203.0.113.${i}`,
          },
          body: JSON.stringify({ api_key: `msk_${"y".repeat(43)}` }),
        });
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 5)).to.deep.equal([401, 401, 401, 401, 401]);
      expect(statuses.at(-1)).to.equal(429);
    });
  });
});
