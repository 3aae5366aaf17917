import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { exportJWK, generateKeyPair } from "jose";
import { type ManagedProcess, startProcess } from "../../deploy/local/child-process.js";
import { ensureLocalPki } from "../../deploy/local/local-pki.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { eventually } from "../support/eventually.js";
import { grpcJsHealthCheck } from "../support/grpc-health.js";
import { copyBuildContext } from "./support/build-context.js";
import { K8S_ROOT, renderKustomization } from "./support/kustomize.js";
import { workloadsOf } from "./support/workloads.js";

const REPO_ROOT = resolve(K8S_ROOT, "../..");
const SERVICES = ["auth", "catalogue", "authoring", "detection"] as const;
/** Replicas of each service, started together on an empty database, as a fresh install scales. */
const REPLICAS = 2;
const execFileAsync = promisify(execFile);

/** Runs a build step; its output is in the error when it fails. */
async function run(file: string, args: string[], cwd: string): Promise<void> {
  try {
    await execFileAsync(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} failed:\n${stdout}${stderr}`);
  }
}

/**
 * The image's build, outside Docker (Docker cannot run here): the Docker build context is copied
 * as the Dockerfile's build stage receives it, the stage's two scripts run in it, and every
 * process then starts from the result with plain `node`, as the pods run it: compiled JavaScript,
 * production dependencies only, ENVIRONMENT=production, against a MongoDB-compatible store.
 */
describe("production build (the image's /app, built and started outside Docker)", function () {
  this.timeout(60_000);
  let work: string;
  let app: string;
  const processes: ManagedProcess[] = [];
  let mongo: EmbeddedMongoHandle | undefined;

  before(async function () {
    this.timeout(300_000);
    work = await mkdtemp(join(tmpdir(), "mds-production-build-"));
    const context = join(work, "context");
    app = join(work, "app");
    await copyBuildContext(REPO_ROOT, context);
    await run(join(context, "deploy/build/install-build-tools.sh"), [], context);
    await run(join(context, "deploy/build/production-build.sh"), [app], context);
  });

  after(async function () {
    this.timeout(30_000);
    await Promise.all(processes.map((child) => child.stop(2000)));
    await mongo?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("holds compiled JavaScript for every Deployment's entry point, and no TypeScript, test or embedded store", async () => {
    expect((await readdir(app)).sort()).to.deep.equal([
      "dist",
      "node_modules",
      "package-lock.json",
      "package.json",
    ]);
    const entries = workloadsOf(await renderKustomization(join(K8S_ROOT, "base"))).map(
      // The entry point is the last argument (node's flags come before it).
      (workload) => workload.pod.containers[0].args?.at(-1) as string,
    );
    expect(entries).to.have.length(5);
    for (const entry of entries) expect(existsSync(join(app, entry)), entry).to.equal(true);
    const files = (await readdir(join(app, "dist"), { recursive: true })).map(String);
    expect(files.filter((file) => file.endsWith(".ts"))).to.deep.equal([]);
    expect(
      files.filter((file) => /(^|\/)(test|bench|deploy|embedded-mongo)(\/|$)/.test(file)),
    ).to.deep.equal([]);
  });

  it("installs exactly the lock file's production packages: no devDependency at all", async () => {
    const pkg = JSON.parse(await readFile(join(app, "package.json"), "utf8"));
    expect(pkg.type).to.equal("module");
    expect(pkg).to.not.have.property("devDependencies");
    const lock = JSON.parse(await readFile(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<
        string,
        { dev?: boolean; optional?: boolean; devOptional?: boolean; link?: boolean }
      >;
    };
    // A devDependency may be there only because a production package needs it too (protobufjs
    // needs @types/node); the tools themselves never are.
    const repoPkg = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
    for (const name of Object.keys(repoPkg.devDependencies)) {
      const present = existsSync(join(app, "node_modules", name));
      const neededAtRunTime = lock.packages[`node_modules/${name}`]?.dev !== true;
      expect(present && !neededAtRunTime, `devDependency ${name} installed`).to.equal(false);
    }
    for (const tool of ["typescript", "tsx", "mocha", "@biomejs/biome", "@bufbuild/buf"]) {
      expect(existsSync(join(app, "node_modules", tool)), tool).to.equal(false);
    }
    const missing: string[] = [];
    const extra: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      // The project's own packages (workspaces): placed by the build, checked below.
      if (path === "" || entry.link || !path.startsWith("node_modules/")) continue;
      const present = existsSync(join(app, path));
      if ((entry.dev || entry.devOptional) && present) extra.push(path);
      if (!entry.dev && !entry.devOptional && !entry.optional && !present) missing.push(path);
    }
    expect(extra, "development packages installed").to.deep.equal([]);
    expect(missing, "production packages missing").to.deep.equal([]);
  });

  it("holds the project's packages the services run, compiled, exporting only their .js files", async () => {
    const scope = join(app, "node_modules/@movement-detection");
    expect((await readdir(scope)).sort()).to.deep.equal(["movespec", "proto", "shared"]);
    for (const name of await readdir(scope)) {
      const pkg = JSON.parse(await readFile(join(scope, name, "package.json"), "utf8"));
      const targets = Object.values(pkg.exports as Record<string, string>);
      expect(targets.length, name).to.be.greaterThan(0);
      for (const target of targets) {
        expect(target, name).to.match(/\.js$/);
        expect(existsSync(join(scope, name, target)), `${name} ${target}`).to.equal(true);
      }
      const files = (await readdir(join(scope, name), { recursive: true })).map(String);
      expect(
        files.filter((file) => file.endsWith(".ts")),
        name,
      ).to.deep.equal([]);
    }
    // The MoveSpec CLI is not in the build: not exported, so an import of it fails at once.
    const movespec = JSON.parse(await readFile(join(scope, "movespec/package.json"), "utf8"));
    expect(movespec.exports).to.not.have.property("./cli");
  });

  it("starts two replicas of every service together on an empty database, and the gateway, with plain node; each serves, then exits 0 within 10 s of SIGTERM", async () => {
    mongo = await startEmbeddedMongo();
    const secrets = join(work, "signing-keys");
    await writeSigningKey(secrets);
    // Only what a pod has: no inherited NODE_OPTIONS (tsx), nothing from the repository.
    const base = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      NODE_ENV: "production",
      ENVIRONMENT: "production",
      LOG_LEVEL: "info",
      // A faked-clock run (docs/testing.md) keeps its calendar: the certificates were made with it.
      ...Object.fromEntries(
        ["LD_PRELOAD", "FAKETIME", "FAKETIME_DONT_FAKE_MONOTONIC"].flatMap((name) =>
          process.env[name] === undefined ? [] : [[name, process.env[name] as string]],
        ),
      ),
    };
    const logs: string[] = [];
    const sink = (name: string, line: unknown) => logs.push(`[${name}] ${JSON.stringify(line)}`);
    const start = (name: string, entry: string, env: Record<string, string>) => {
      const child = startProcess({
        name,
        entry: join(app, entry),
        cwd: app,
        env: { ...base, ...env },
        sink,
      });
      processes.push(child);
      return child;
    };

    const pepper = randomBytes(32).toString("hex");
    // What cert-manager mounts in each pod: a certificate per workload, from one CA.
    const pki = await ensureLocalPki({ dir: join(work, "pki") });
    const identity = (workload: string) => ({ INTERNAL_TLS_DIR: join(pki.dir, workload) });
    const operator = {
      cert: await readFile(join(pki.tlsDirOf("operator"), "tls.crt")),
      key: await readFile(join(pki.tlsDirOf("operator"), "tls.key")),
      ca: await readFile(join(pki.tlsDirOf("operator"), "ca.crt")),
      certPath: "",
      keyPath: "",
      caPath: "",
    };
    // Every replica creates its indexes at start-up: together, on an empty database, they must
    // all come up (index creation is idempotent).
    const services = await Promise.all(
      SERVICES.flatMap((name) =>
        Array.from({ length: REPLICAS }, async (_, replica) => {
          const child = start(`${name}-${replica}`, `dist/services/${name}/main.js`, {
            MONGODB_URI: mongo?.uri as string,
            GRPC_HOST: "127.0.0.1",
            GRPC_PORT: "0",
            ADMIN_PORT: "0",
            ...identity(name),
            ...(name === "auth"
              ? {
                  SIGNING_KEYS_DIR: secrets,
                  AUTH_SECRET_PEPPER: pepper,
                  KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString("base64url")}`,
                }
              : {}),
          });
          const listening = await child.waitFor(["listening"], 30_000);
          return { name, child, url: `https://127.0.0.1:${Number(listening.grpc_port)}` };
        }),
      ),
    );
    for (const service of services) {
      let status: string | undefined;
      let lastError = "";
      await eventually(
        async () => {
          status = await grpcJsHealthCheck(service.url, "", operator).catch((error: Error) => {
            lastError = error.message;
            return undefined;
          });
          return status === "SERVING";
        },
        30_000,
        200,
      ).catch(() => undefined); // the expectation below says which service, why, with the logs
      expect(
        status,
        `${service.child.name}: grpc.health.v1 Check (last error: ${lastError})\n${logs.join("\n")}`,
      ).to.equal("SERVING");
    }

    const url = (name: string) =>
      services
        .filter((service) => service.name === name)
        .map((service) => service.url)
        .join(",");
    const gateway = start("gateway", "dist/gateway/main.js", {
      HOST: "127.0.0.1",
      PORT: "0",
      ADMIN_PORT: "0",
      PUBLIC_BASE_URL: "https://mds.example.com",
      ...identity("gateway"),
      AUTH_SERVICE_URL: url("auth").split(",")[0],
      CATALOGUE_SERVICE_URL: url("catalogue").split(",")[0],
      AUTHORING_SERVICE_URL: url("authoring").split(",")[0],
      DETECTION_SERVICE_URLS: url("detection"),
    });
    const serving = await gateway.waitFor(["serving"], 20_000);
    const health = await fetch(`http://127.0.0.1:${Number(serving.port)}/api/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.include({ status: "ok", environment: "production" });
    // Ready once its first grpc.health.v1 checks of every service (mutual TLS) came back SERVING:
    // a readiness probe is polled, so is it here.
    const readyz = `http://127.0.0.1:${Number(serving.admin_port)}/readyz?verbose`;
    let ready: { status: number; report: string } | undefined;
    await eventually(
      async () => {
        const response = await fetch(readyz);
        ready = { status: response.status, report: await response.text() };
        return ready.status === 200;
      },
      15_000,
      200,
    ).catch(() => undefined); // the expectation below shows the gateway's readiness report
    expect(ready?.status, `gateway /readyz\n${ready?.report}\n${logs.join("\n")}`).to.equal(200);

    // The gateway first, then every service at once; each within 10 s, with exit code 0.
    for (const group of [[gateway], services.map((service) => service.child)]) {
      const started = Date.now();
      const codes = await Promise.all(group.map((child) => child.stop(10_000)));
      for (const [index, code] of codes.entries()) {
        expect(code, `${group[index].name} exit code\n${logs.join("\n")}`).to.equal(0);
      }
      expect(Date.now() - started, "stop time").to.be.below(10_000);
    }
    const fatal = logs.filter((line) => line.includes('"level":"fatal"'));
    expect(fatal).to.deep.equal([]);
  });
});

/** A private signing JWK in a directory, as the operator's `auth-signing-keys` Secret holds it. */
async function writeSigningKey(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "EdDSA" };
  await writeFile(join(directory, `${kid}.json`), JSON.stringify(jwk));
}
