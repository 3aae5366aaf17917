/**
 * `npm start` under fire (issue 17), the launcher itself rather than the test harness: a request
 * leaves one access-log line with its trace id; kill -9 of the store, of every service and of the
 * gateway is logged with the child's last lines, the child is restarted, and readiness shows the
 * outage until it is over; a child that keeps crashing makes the launcher give up and exit 1.
 */

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { HOT_PATH_NODE_FLAGS, nodeFlagsOf } from "../../deploy/local/node-flags.js";
import { eventually } from "../support/eventually.js";
import {
  ENTRY_POINTS,
  type Launcher,
  type LauncherLine,
  startLauncher,
} from "../support/launcher.js";

type ChildName = keyof typeof ENTRY_POINTS;
const SERVICES = ["auth", "catalogue", "authoring", "detection"] as const;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

/** The status of GET /readyz (verbose: its JSON report), or `down` when nothing answers. */
async function readiness(
  adminUrl: string,
): Promise<{ status: number | "down"; report?: Record<string, unknown> }> {
  try {
    const response = await fetch(`${adminUrl}/readyz?verbose`, {
      signal: AbortSignal.timeout(2000),
    });
    return { status: response.status, report: (await response.json()) as Record<string, unknown> };
  } catch {
    return { status: "down" };
  }
}

/**
 * The addresses `pid` listens on over TCP (Linux: its socket inodes in /proc/<pid>/fd, looked up
 * in /proc/net/tcp and tcp6, state 0A = LISTEN), as `a.b.c.d:port` (`[v6]:port` for IPv6).
 */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed while listed
    }
  }
  const addresses: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const row of readFileSync(table, "utf8").trim().split("\n").slice(1)) {
      const fields = row.trim().split(/\s+/);
      if (fields[3] !== "0A" || !inodes.has(fields[9])) continue;
      const [hexAddress, hexPort] = fields[1].split(":");
      const port = Number.parseInt(hexPort, 16);
      addresses.push(
        hexAddress.length === 8
          ? `${(hexAddress.match(/../g) as string[])
              .reverse()
              .map((b) => Number.parseInt(b, 16))
              .join(".")}:${port}`
          : `[${hexAddress}]:${port}`,
      );
    }
  }
  return addresses;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The niceness of every thread of `pid` (Linux /proc: field 19 of each task's stat). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}
const CONTROL_PLANE = ["embedded-mongo", "auth", "catalogue", "authoring"] as const;

/** Polls `probe` (eventually) until `done` holds for its answer; returns every answer seen. */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
  const seen: T[] = [];
  await eventually(
    async () => {
      const value = await probe();
      seen.push(value);
      return done(value);
    },
    timeoutMs,
    100,
  );
  return seen;
}

describe("npm start: access log, supervision and readiness", function () {
  this.timeout(240_000);
  let launcher: Launcher;
  const adminUrls = new Map<string, string>();

  before(async () => {
    launcher = await startLauncher({
      // Each child may crash once per window; the gateway's second crash ends the run.
      LAUNCHER_MAX_RESTARTS: "1",
      LAUNCHER_RESTART_WINDOW_MS: "600000",
      // Long enough for the outage to be seen; short enough for a quick test.
      LAUNCHER_RESTART_BACKOFF_MS: "2000",
      // No collector here: carry the callers' trace context (the access log quotes its id).
      OTEL_PROPAGATORS: "tracecontext",
    });
    for (const name of SERVICES) {
      const line = launcher.lines.find((l) => l.name === name && l.msg === "listening");
      adminUrls.set(name, `http://127.0.0.1:${line?.fields.admin_port}`);
    }
    const gateway = launcher.lines.find((l) => l.name === "gateway" && l.msg === "serving");
    adminUrls.set("gateway", `http://127.0.0.1:${gateway?.fields.admin_port}`);
  });

  after(async () => {
    await launcher?.stop();
  });

  const admin = (name: string) => adminUrls.get(name) as string;
  const kill = (name: ChildName) => {
    const pid = launcher.childPid(ENTRY_POINTS[name]);
    expect(pid, `${name} is running`).to.be.a("number");
    process.kill(pid as number, "SIGKILL");
    return pid as number;
  };
  const launcherSaid = (msg: string, name: ChildName, pid?: number) => (line: LauncherLine) =>
    line.name === "launcher" &&
    line.msg === msg &&
    line.fields.process === name &&
    (pid === undefined || line.fields.child_pid === String(pid));
  const expectCrashLogged = async (name: ChildName, pid: number) => {
    const crash = await launcher.waitForLine(
      launcherSaid("process exited unexpectedly", name, pid),
      10_000,
    );
    expect(crash.level).to.equal("error");
    expect(crash.fields.exit).to.equal("SIGKILL");
    // The child's last lines are quoted under the crash line.
    const at = launcher.lines.indexOf(crash);
    expect(launcher.lines[at + 1]?.text, "the last lines of the dead child").to.match(/^\s+\| /);
  };

  it("the control plane runs at niceness 10 (every thread), the gateway and detection at the launcher's", function () {
    if (process.platform !== "linux") this.skip();
    const own = threadNiceness(process.pid)[0];
    for (const name of CONTROL_PLANE) {
      const threads = threadNiceness(launcher.childPid(ENTRY_POINTS[name]) as number);
      expect(threads.length, `${name} threads`).to.be.greaterThan(1);
      expect(new Set(threads), name).to.deep.equal(new Set([Math.min(19, own + 10)]));
    }
    for (const name of ["gateway", "detection"] as const) {
      const threads = threadNiceness(launcher.childPid(ENTRY_POINTS[name]) as number);
      expect(new Set(threads), name).to.deep.equal(new Set([own]));
    }
  });

  it("the gateway and detection run with the frames' path's V8 flags, the other processes without", function () {
    if (process.platform !== "linux") this.skip();
    for (const name of Object.keys(ENTRY_POINTS) as ChildName[]) {
      const pid = launcher.childPid(ENTRY_POINTS[name]) as number;
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const expected = name === "gateway" || name === "detection" ? HOT_PATH_NODE_FLAGS : [];
      expect(expected, name).to.deep.equal(nodeFlagsOf(name));
      expect(args.slice(1, 1 + expected.length), name).to.deep.equal(expected);
      expect(
        args.filter((arg) => arg.startsWith("--heap-")),
        name,
      ).to.deep.equal(expected);
    }
  });

  it("every port of every process listens on 127.0.0.1 only, the gateway's included", function () {
    if (process.platform !== "linux") this.skip();
    for (const name of Object.keys(ENTRY_POINTS) as ChildName[]) {
      const listening = listeningAddresses(launcher.childPid(ENTRY_POINTS[name]) as number);
      expect(listening.length, `${name} listens`).to.be.greaterThan(0);
      for (const address of listening) expect(address, name).to.match(/^127\.0\.0\.1:\d+$/);
    }
  });

  it("the banner's admin line works as printed, with this run's own state directory", async () => {
    const line = await launcher.waitForLine((l) => l.text.includes("Admin tool:"), 5000);
    const printed = /Admin tool:\s+(.*) npm run admin -- --help/.exec(line.text)?.[1] ?? "";
    const env = Object.fromEntries(printed.split(" ").map((pair) => pair.split("=")));
    // The state directory is not .data, so the line names the operator's certificates.
    expect(env.INTERNAL_TLS_DIR).to.match(/mds-launcher-.*\/pki\/operator$/);
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "services/admin/main.ts", "auth", "list-orgs", "--json"],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
    );
    expect(JSON.parse(stdout).map((org: { name: string }) => org.name)).to.include("Development");
  });

  it("a request leaves exactly one access-log line at info, with its request id and trace id", async () => {
    const traceId = randomBytes(16).toString("hex");
    const response = await fetch(`${launcher.gatewayUrl}/api/health?api_key=secret123`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
    });
    expect(response.status).to.equal(200);
    const line = await launcher.waitForLine(
      (l) => l.name === "gateway" && l.msg === "request" && l.fields.trace_id === traceId,
      10_000,
    );
    expect(line.level).to.equal("info");
    expect(line.fields).to.include({
      method: "GET",
      route: "/api/health",
      status: "200",
      request_id: response.headers.get("x-request-id") as string,
      query: "api_key=[REDACTED]",
    });
    expect(Number(line.fields.bytes_out)).to.be.above(0);
    expect(line.text).to.not.include("secret123");
    // Lines of one process arrive in order: once a later request's line is in, a second line for
    // the first request would be too.
    const marker = randomBytes(4).toString("hex");
    await fetch(`${launcher.gatewayUrl}/api/health?marker=${marker}`);
    await launcher.waitForLine((l) => l.fields.query === `marker=${marker}`, 10_000);
    expect(launcher.lines.filter((l) => l.fields.trace_id === traceId)).to.have.length(1);
  });

  it("kill -9 of the store: logged, restarted, and the services and the gateway are not ready until it is back", async () => {
    await until(
      () => readiness(admin("gateway")),
      (r) => r.status === 200,
      30_000,
    );
    const pid = kill("embedded-mongo");
    await expectCrashLogged("embedded-mongo", pid);
    const service = await until(
      () => readiness(admin("auth")),
      (r) => r.status === 503,
      10_000,
    );
    const report = service.at(-1)?.report as { dependencies: { name: string; status: string }[] };
    expect(report.dependencies.find((d) => d.name === "mongodb")?.status).to.equal("UNREACHABLE");
    await until(
      () => readiness(admin("gateway")),
      (r) => r.status === 503,
      10_000,
    );
    await launcher.waitForLine(launcherSaid("process restarted", "embedded-mongo"), 20_000);
    await until(
      () => readiness(admin("auth")),
      (r) => r.status === 200,
      30_000,
    );
    await until(
      () => readiness(admin("gateway")),
      (r) => r.status === 200,
      30_000,
    );
    expect((await fetch(`${launcher.gatewayUrl}/api/movespecs`)).status).to.equal(200);
  });

  it("kill -9 of every service: each logged and restarted; the gateway says which are missing until all are back", async () => {
    const pids = SERVICES.map((name) => kill(name));
    const missingSeen = new Set<string>();
    await until(
      () => readiness(admin("gateway")),
      (r) => {
        // Without auth or detection it is not ready (missing); without catalogue or
        // authoring it is degraded.
        for (const line of [
          ...((r.report?.missing as string[]) ?? []),
          ...((r.report?.degraded as string[]) ?? []),
        ])
          missingSeen.add(line.split(/[ :]/)[0]);
        return missingSeen.size === SERVICES.length;
      },
      20_000,
    );
    for (const [index, name] of SERVICES.entries()) await expectCrashLogged(name, pids[index]);
    await until(
      () => readiness(admin("gateway")),
      (r) => r.status === 200,
      60_000,
    );
    // The gateway is ready with catalogue or authoring still degraded: each is waited for itself.
    for (const name of SERVICES) {
      await launcher.waitForLine(launcherSaid("process restarted", name), 1000);
      const seen = await until(
        () => readiness(admin(name)),
        (r) => r.status === 200,
        30_000,
      );
      expect(seen.at(-1)?.status, name).to.equal(200);
    }
    // A restarted child keeps its priority.
    if (process.platform === "linux") {
      const own = threadNiceness(process.pid)[0];
      const auth = threadNiceness(launcher.childPid(ENTRY_POINTS.auth) as number);
      expect(new Set(auth), "restarted auth").to.deep.equal(new Set([Math.min(19, own + 10)]));
    }
    expect((await fetch(`${launcher.gatewayUrl}/api/movespecs`)).status).to.equal(200);
  });

  it("kill -9 of the gateway: logged, restarted on the same ports, not ready until it is back", async () => {
    const pid = kill("gateway");
    await expectCrashLogged("gateway", pid);
    expect((await readiness(admin("gateway"))).status).to.equal("down");
    await until(
      () => readiness(admin("gateway")),
      (r) => r.status === 200,
      30_000,
    );
    expect((await fetch(`${launcher.gatewayUrl}/api/health`)).status).to.equal(200);
  });

  it("a child that keeps crashing: the launcher gives up, stops everything and exits 1", async () => {
    kill("gateway");
    const fatal = await launcher.waitForLine(
      launcherSaid("process keeps crashing: giving up", "gateway"),
      10_000,
    );
    expect(fatal.level).to.equal("fatal");
    expect(await launcher.exited).to.equal(1);
    for (const name of SERVICES)
      expect(launcher.childPid(ENTRY_POINTS[name]), name).to.equal(undefined);
  });
});

describe("npm start stopping: children that stop on their own meanwhile", function () {
  this.timeout(120_000);

  it("SIGTERM to npm itself stops everything in order, as to the launcher", async () => {
    const launcher = await startLauncher({}, { viaNpm: true });
    const launcherPid = launcher.launcherPid();
    try {
      const pids = [launcherPid, ...Object.values(ENTRY_POINTS).map(launcher.childPid)];
      for (const pid of pids) expect(pid, "every process found").to.be.a("number").above(0);
      launcher.process.kill("SIGTERM");
      await launcher.waitForLine((line) => line.text === "stopped.", 20_000);
      await eventually(() => pids.every((pid) => !isAlive(pid as number)), 10_000);
      const said = launcher.lines.filter((line) => line.name === "launcher").map((l) => l.msg);
      expect(said).to.not.include("process exited unexpectedly");
    } finally {
      // Left running by a failure above: stop it here (it stops its children), not as an orphan.
      if (launcherPid > 0 && isAlive(launcherPid)) process.kill(launcherPid, "SIGTERM");
      await launcher.stop();
    }
  });

  it("a child that exits while the launcher stops (Ctrl-C signals them all) is no crash and is not restarted", async () => {
    const launcher = await startLauncher({ LAUNCHER_RESTART_BACKOFF_MS: "0" });
    try {
      const store = launcher.childPid(ENTRY_POINTS["embedded-mongo"]);
      expect(store, "the store is running").to.be.a("number");
      launcher.process.kill("SIGTERM");
      await launcher.waitForLine((line) => line.text.startsWith("stopping (SIGTERM)"), 10_000);
      // The store gets its own signal before the launcher reaches it (it stops it last).
      process.kill(store as number, "SIGTERM");
      expect(await launcher.exited).to.equal(0);
      const launcherLines = launcher.lines.filter((line) => line.name === "launcher");
      const said = launcherLines.map((line) => line.msg);
      expect(said).to.not.include("process exited unexpectedly");
      expect(said).to.not.include("restarting process");
    } finally {
      await launcher.stop();
    }
  });
});
