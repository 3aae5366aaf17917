import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DevCredentials } from "../../services/auth/operations/dev-bootstrap.js";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";
import { type LineSink, type ManagedProcess, startProcess } from "./child-process.js";
import { freePort } from "./free-port.js";
import { ensureLocalPki, type LocalPki } from "./local-pki.js";
import { ensureDevSecrets } from "./local-secrets.js";
import { nodeFlagsOf } from "./node-flags.js";
import { createSupervisor, type RestartPolicy, type SupervisedProcess } from "./supervisor.js";

export const SERVICE_NAMES = ["auth", "catalogue", "authoring", "detection"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Fixed ports of `npm start`; the test harness uses ephemeral ones (0) instead. */
const DEFAULT_PORTS = {
  gateway: 8080,
  gatewayAdmin: 9100,
  embeddedMongo: 27117,
  auth: { grpc: 50051, admin: 9101 },
  catalogue: { grpc: 50052, admin: 9102 },
  authoring: { grpc: 50053, admin: 9103 },
  detection: { grpc: 50054, admin: 9104 },
} as const;

export interface StackOptions {
  /** A real MongoDB; when absent the embedded store is started on `dataDir`. */
  readonly mongodbUri?: string;
  readonly dataDir?: string;
  /**
   * Where the local CA and workload certificates (pki/) and the development secrets (secrets/)
   * live, outside the store's data files. Default .data (npm start); the test harness gives each
   * system a temporary one.
   */
  readonly stateDir?: string;
  /** `fixed` for npm start, `ephemeral` (port 0 everywhere) for tests. */
  readonly ports: "fixed" | "ephemeral";
  /**
   * The address the gateway's ports (public and admin) bind. Default 127.0.0.1: the development
   * key has every scope, so a local system answers this machine only; `0.0.0.0` opens it to the
   * network (clients on other machines).
   */
  readonly gatewayHost?: string;
  /** Extra environment for every process (short timeouts in tests, LOG_LEVEL, ...). */
  readonly env?: Readonly<Record<string, string>>;
  readonly serviceEnv?: Partial<Readonly<Record<ServiceName | "gateway", Record<string, string>>>>;
  readonly detectionReplicas?: number;
  /**
   * `npm start` only: auth creates a development organization, project and key on an empty
   * database and hands the key over on a private pipe (never its log): `Stack.devCredentials`.
   * Ignored when ENVIRONMENT=production.
   */
  readonly devBootstrap?: boolean;
  readonly sink: LineSink;
  /**
   * How long each process may take to log that it serves (default 60 s). From the sources, each
   * loads its modules through tsx; on a busy 2-core machine (a first run transpiling everything,
   * a test job beside it) that took close to 30 s, the default before.
   */
  readonly startTimeoutMs?: number;
  /**
   * Restart children that die on their own (`npm start`); unset, a dead child stays dead (tests
   * that kill a process restart it themselves).
   */
  readonly restart?: RestartPolicy;
  /** Called when a child crashed more often than `restart` allows. */
  readonly onGiveUp?: (name: string) => void;
  /**
   * A compiled tree (`tsc -p tsconfig.build.json --outDir <dir>`): the services and the gateway
   * run its JavaScript with plain node instead of the TypeScript sources through tsx, which
   * starts them about twice as fast (the test harness). The embedded store runs from it too when
   * the tree has it (`services/embedded-mongo/main.js`), from source otherwise.
   */
  readonly compiledRoot?: string;
  /**
   * Steps of niceness (0-19) below the launcher's priority for the control plane: the store, auth,
   * catalogue and authoring. On one machine they share the cores with the realtime path (the
   * gateway and detection), whose frames have a deadline every 33 ms; a burst of session
   * creations or token exchanges can wait a few milliseconds more. 0 (the default): every
   * process at the launcher's priority.
   */
  readonly controlPlaneNiceness?: number;
}

export interface ServiceEndpoint {
  readonly name: string;
  readonly grpcUrl: string;
  readonly grpcPort: number;
  readonly adminUrl: string;
  readonly process: ManagedProcess;
}

export interface Stack {
  /** The development key auth created on an empty database (devBootstrap), shown once. */
  readonly devCredentials: DevCredentials | undefined;
  readonly gatewayUrl: string;
  /** The local CA and every workload's certificate (absent with INTERNAL_TRANSPORT=h2c). */
  readonly pki: LocalPki | undefined;
  readonly gatewayAdminUrl: string;
  /** Carries the store's credentials: hand it to processes, never to a log. */
  readonly mongodbUri: string;
  /** The embedded store's 0600 credentials file (unset with an external MongoDB). */
  readonly storeCredentialsFile?: string;
  readonly services: Readonly<Record<ServiceName, ServiceEndpoint>>;
  readonly detectionReplicas: readonly ServiceEndpoint[];
  readonly processes: readonly ManagedProcess[];
  /** Gateway first, then the services, then the store: nothing is lost on the way down. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 8000;

export async function startStack(options: StackOptions): Promise<Stack> {
  const started: ManagedProcess[] = [];
  const timeout = options.startTimeoutMs ?? 60_000;
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    SUPERVISED: "1",
    ...options.env,
  };
  delete base.MONGODB_URI;
  // The launcher learns ports and readiness from info-level lines ("serving", "ready"): processes
  // always log at info or finer, and lines below the level asked for are dropped here instead.
  const sink = quietSink(options.sink, base.LOG_LEVEL);
  if (sink !== options.sink) base.LOG_LEVEL = "info";
  const supervisor = options.restart
    ? createSupervisor(options.restart, sink, (name) => options.onGiveUp?.(name))
    : undefined;
  type Spec = Parameters<typeof startProcess>[0];
  /** Starts a child; under a restart policy, one that is restarted when it dies on its own. */
  const spawn = (spec: Spec): ManagedProcess | SupervisedProcess =>
    supervisor
      ? supervisor.supervise(startProcess(spec), () => startProcess(spec))
      : startProcess(spec);
  /** A restarted child binds the port its first run got (the others already use it). */
  const pin = (child: ManagedProcess, spec: Spec) => {
    if ("restartWith" in child) (child as SupervisedProcess).restartWith(() => startProcess(spec));
  };
  /** From now on a crash of `child` is restarted (before, it fails the start). */
  const markReady = (child: ManagedProcess) => {
    if ("markReady" in child) (child as SupervisedProcess).markReady();
  };
  const stopAll = async () => {
    supervisor?.shutDown();
    const gateway = started.filter((p) => p.name === "gateway");
    const store = started.filter((p) => p.name === "embedded-mongo");
    const services = started.filter((p) => !gateway.includes(p) && !store.includes(p));
    await Promise.all(gateway.map((p) => p.stop(STOP_GRACE_MS)));
    await Promise.all(services.map((p) => p.stop(STOP_GRACE_MS)));
    await Promise.all(store.map((p) => p.stop(STOP_GRACE_MS)));
  };

  const entryPoint = (module: string): string =>
    options.compiledRoot
      ? join(options.compiledRoot, `${module}.js`)
      : join(REPO_ROOT, `${module}.ts`);

  try {
    const stateDir = options.stateDir ?? join(REPO_ROOT, ".data");
    // Every internal call is mutual TLS unless h2c was asked for (a trusted network, benchmarks).
    const tlsOn = (base.INTERNAL_TRANSPORT ?? "mtls") !== "h2c";
    const pki = tlsOn ? await ensureLocalPki({ dir: join(stateDir, "pki") }) : undefined;
    const identityEnv = (workload: string): NodeJS.ProcessEnv =>
      pki ? { INTERNAL_TLS_DIR: join(pki.dir, workload), TRUST_DOMAIN: pki.trustDomain } : {};
    // Auth's pepper and key-encryption key: from files, unless the caller configured its own.
    const authSet = { ...base, ...options.serviceEnv?.auth };
    const secretsEnv: NodeJS.ProcessEnv = {};
    if (base.ENVIRONMENT !== "production") {
      const secrets = await ensureDevSecrets(join(stateDir, "secrets"));
      if (!authSet.AUTH_SECRET_PEPPER && !authSet.AUTH_SECRET_PEPPER_FILE) {
        secretsEnv.AUTH_SECRET_PEPPER_FILE = secrets.pepperFile;
      }
      if (!authSet.KEY_ENCRYPTION_KEYS && !authSet.KEY_ENCRYPTION_KEYS_FILE) {
        secretsEnv.KEY_ENCRYPTION_KEYS_FILE = secrets.keyEncryptionKeysFile;
      }
    }
    let mongodbUri = options.mongodbUri;
    let storeCredentialsFile: string | undefined;
    if (!mongodbUri) {
      // A compiled tree has the store only when it was built with it (the test systems' is).
      const compiledStore =
        options.compiledRoot && join(options.compiledRoot, "services/embedded-mongo/main.js");
      const entry =
        compiledStore && existsSync(compiledStore)
          ? compiledStore
          : join(REPO_ROOT, "services/embedded-mongo/main.ts");
      if (!existsSync(entry)) throw new Error(`embedded store missing: ${entry}`);
      const dataDir = options.dataDir ?? join(REPO_ROOT, ".data/mongo");
      const port = options.ports === "fixed" ? DEFAULT_PORTS.embeddedMongo : 0;
      const storeSpec = (listenPort: number): Spec => ({
        name: "embedded-mongo",
        entry,
        cwd: REPO_ROOT,
        // The store cannot poll its parent the way services do: it stops when stdin closes.
        env: { ...base, EMBEDDED_MONGO_STOP_ON_STDIN_CLOSE: "1" },
        sink,
        args: ["--port", String(listenPort), "--dbpath", dataDir],
        stdinLifeline: true,
        niceness: options.controlPlaneNiceness,
      });
      const store = spawn(storeSpec(port));
      started.push(store);
      const ready = await store.waitFor(["ready"], timeout);
      markReady(store);
      // The ready line's URI has no password; the store's credentials file (0600) has it. A
      // restarted store keeps its data directory, so its credentials and this URI stay valid.
      storeCredentialsFile = String(ready.credentialsFile);
      mongodbUri = authenticatedUri({
        uri: String(ready.uri),
        credentialsFile: storeCredentialsFile,
      });
      pin(store, storeSpec(Number(ready.port)));
    }

    const gatewayHost = options.gatewayHost ?? "127.0.0.1";
    const bootstrap = options.devBootstrap === true && base.ENVIRONMENT !== "production";
    const replicas = Math.max(1, options.detectionReplicas ?? 1);
    const ports = await planPorts(options.ports, replicas);
    const url = (port: number) => `${tlsOn ? "https" : "http"}://127.0.0.1:${port}`;
    // Every process knows every service's address: services call each other too.
    const addresses: NodeJS.ProcessEnv = {
      AUTH_SERVICE_URL: url(ports.auth[0].grpc),
      CATALOGUE_SERVICE_URL: url(ports.catalogue[0].grpc),
      AUTHORING_SERVICE_URL: url(ports.authoring[0].grpc),
      DETECTION_SERVICE_URLS: ports.detection.map((p) => url(p.grpc)).join(","),
    };
    const serviceEnv = (name: ServiceName, index = 0): NodeJS.ProcessEnv => ({
      ...base,
      ...addresses,
      ...identityEnv(name),
      // Internal ports answer this machine only; the gateway is the public edge.
      GRPC_HOST: "127.0.0.1",
      MONGODB_URI: mongodbUri,
      GRPC_PORT: String(ports[name][index].grpc),
      ADMIN_PORT: String(ports[name][index].admin),
      ...(name === "auth" ? secretsEnv : {}),
      ...(name === "auth" && bootstrap ? { DEV_BOOTSTRAP: "1", DEV_CREDENTIALS_FD: "3" } : {}),
      ...options.serviceEnv?.[name],
    });
    const launch = async (name: ServiceName, index = 0): Promise<ServiceEndpoint> => {
      const processName = index === 0 ? name : `${name}-${index + 1}`;
      const child = spawn({
        name: processName,
        entry: entryPoint(`services/${name}/main`),
        cwd: REPO_ROOT,
        env: serviceEnv(name, index),
        sink,
        privatePipe: name === "auth" && index === 0 && bootstrap,
        niceness: name === "detection" ? 0 : options.controlPlaneNiceness,
        nodeFlags: nodeFlagsOf(name),
      });
      started.push(child);
      const line = await child.waitFor(["serving"], timeout);
      markReady(child);
      const grpcPort = Number(line.grpc_port);
      if (grpcPort !== ports[name][index].grpc) throw new Error(`${processName} bound ${grpcPort}`);
      return {
        name: processName,
        grpcPort,
        grpcUrl: url(grpcPort),
        adminUrl: `http://127.0.0.1:${Number(line.admin_port)}`,
        process: child,
      };
    };

    const launched = Promise.all([
      launch("auth"),
      launch("catalogue"),
      launch("authoring"),
      ...Array.from({ length: replicas }, (_, index) => launch("detection", index)),
    ]);

    const gatewaySpec = (port: number, adminPort: number): Spec => ({
      name: "gateway",
      entry: entryPoint("gateway/main"),
      cwd: REPO_ROOT,
      env: {
        ...base,
        ...addresses,
        ...identityEnv("gateway"),
        HOST: gatewayHost,
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        ...options.serviceEnv?.gateway,
      },
      sink,
      nodeFlags: nodeFlagsOf("gateway"),
    });
    const gateway =
      options.ports === "fixed"
        ? spawn(gatewaySpec(DEFAULT_PORTS.gateway, DEFAULT_PORTS.gatewayAdmin))
        : spawn(gatewaySpec(0, 0));
    started.push(gateway);
    const [line, [auth, catalogue, authoring, ...detection]] = await Promise.all([
      gateway.waitFor(["serving"], timeout).then((serving) => {
        markReady(gateway);
        return serving;
      }),
      launched,
    ]);
    const services = { auth, catalogue, authoring, detection: detection[0] };
    pin(gateway, gatewaySpec(Number(line.port), Number(line.admin_port)));
    return {
      devCredentials: await devCredentialsOf(auth.process),
      pki,
      gatewayUrl: `http://${reachable(gatewayHost)}:${Number(line.port)}`,
      gatewayAdminUrl: `http://${reachable(gatewayHost)}:${Number(line.admin_port)}`,
      mongodbUri,
      storeCredentialsFile,
      services,
      detectionReplicas: detection,
      processes: started,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Where this machine reaches a server bound to `host` (a wildcard: the loopback address). */
function reachable(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

type PortPlan = Record<ServiceName, { grpc: number; admin: number }[]>;

/** Ports are chosen before anything starts because services call each other (free-port.ts). */
async function planPorts(mode: StackOptions["ports"], replicas: number): Promise<PortPlan> {
  const plan = {} as PortPlan;
  const taken = new Set<number>();
  const next = async () => {
    const port = await freePort({ taken });
    taken.add(port);
    return port;
  };
  for (const name of SERVICE_NAMES) {
    const count = name === "detection" ? replicas : 1;
    plan[name] = [];
    for (let index = 0; index < count; index += 1) {
      const fixed = DEFAULT_PORTS[name];
      plan[name].push(
        mode === "fixed"
          ? { grpc: fixed.grpc + index * 10, admin: fixed.admin + index * 10 }
          : { grpc: await next(), admin: await next() },
      );
    }
  }
  return plan;
}

const LEVEL_RANK: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};
const LIFECYCLE = new Set(["listening", "serving", "ready", "stopped"]);

function quietSink(sink: LineSink, level: string | undefined): LineSink {
  const threshold = level === "silent" ? 100 : (LEVEL_RANK[level ?? ""] ?? 0);
  if (threshold <= LEVEL_RANK.info) return sink;
  return (name, line) => {
    if (typeof line === "string") return sink(name, line);
    const rank = LEVEL_RANK[String(line.level)] ?? LEVEL_RANK.info;
    if (rank >= threshold || LIFECYCLE.has(String(line.msg))) sink(name, line);
  };
}

/** Auth closes its private pipe once its bootstrap is done: a key, or nothing on a used database. */
async function devCredentialsOf(auth: ManagedProcess): Promise<DevCredentials | undefined> {
  if (!auth.privateOutput) return undefined;
  const text = await Promise.race([
    auth.privateOutput,
    new Promise<string>((resolve) => setTimeout(() => resolve(""), 5000).unref()),
  ]);
  const line = text.split("\n").find((entry) => entry.trim() !== "");
  return line ? (JSON.parse(line) as DevCredentials) : undefined;
}
