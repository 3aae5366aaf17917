/**
 * Memory per open live session in the processes a stream goes through, detection and the gateway
 * (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/session-memory.bench.ts [--levels 100,300,500] [--encoding json] [--settle 10]
 *
 * Against the whole system (embedded store, services, gateway; LOG_LEVEL=info), live sessions
 * are opened through the gateway level by level and kept open, each streaming one frame per
 * message at 30 fps (UI-PRMD deep squat m01_s01 in a loop, seq and t rising). At each level,
 * after `--settle` seconds, detection and the gateway collect all garbage and report their
 * memory (bench/support/memory-probe.ts); the figure per session is the growth from one level to
 * the next divided by the sessions added, so what a process allocates once (the JIT, pools, the
 * hop's connection) and what it allocated lately but has not freed are both left out:
 *
 * - heap: V8 heap in use after the collection (the sessions' objects: sockets, streams, the
 *   engine, the owned session);
 * - external: memory outside the heap that JavaScript objects hold (Buffers: the sockets' and
 *   ws's buffers, the engine's typed arrays);
 * - anonymous resident: the memory the process allocated and has in RAM (Linux's RssAnon), which
 *   adds native memory no JavaScript object accounts for (nghttp2's per-stream state, OpenSSL,
 *   the allocator's slack);
 * - resident: the whole resident set, which also counts pages mapped from files (the node
 *   binary), which the kernel drops and reads back as it likes: reported, but noisy.
 *
 * Before the first level a warm-up opens and closes 50 sessions. Every session must stay
 * problem-free (no error, no warning, no unexpected close) or the run fails.
 *
 * MEMORY_PROBE_SNAPSHOT_DIR=<dir> also writes a heap snapshot of each process at each level
 * (bench/support/memory-probe.ts; compare two with bench/support/heap-snapshot-diff.ts --per N).
 *
 * `--chain floor` measures live-floor.bench.ts's floor processes the same way (the libraries and
 * hops with none of our code, binary frames only): the settled figure that "memory per session
 * within 2x the floor" can be read against, where the floor's resident set under load is noise.
 */

import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { TestTenant } from "../../test/detection/support/session-api.js";
import { readCommandLine } from "../support/command-line.js";
import type { BenchSocket, Encoding, PreparedFrames } from "./load.js";

const USAGE = `usage: node --import tsx bench/detection/session-memory.bench.ts [options]

  --levels A,B,...   open live sessions at each measurement, rising (100,300,500)
  --chain C          system (the gateway and detection) or floor (live-floor's floor processes:
                     the same libraries and hops with none of our code; binary frames)
  --encoding E       json or binary frames (json; binary with --chain floor)
  --settle S         seconds of streaming at a level before measuring (10)
  --help             this text
`;

function parseOptions() {
  return readCommandLine("session-memory.bench", USAGE, (help) => {
    const { values } = parseArgs({
      options: {
        help: { type: "boolean", default: false },
        levels: { type: "string", default: "100,300,500" },
        chain: { type: "string", default: "system" },
        encoding: { type: "string" },
        settle: { type: "string", default: "10" },
      },
    });
    if (values.help) help();
    const levels = values.levels.split(",").map(Number);
    if (
      levels.some(
        (level, i) => !Number.isInteger(level) || level < 1 || level <= (levels[i - 1] ?? 0),
      )
    ) {
      throw new Error("--levels must be whole numbers of sessions, 1 or more, rising");
    }
    if (values.chain !== "system" && values.chain !== "floor") {
      throw new Error("--chain must be system or floor");
    }
    const encoding = values.encoding ?? (values.chain === "floor" ? "binary" : "json");
    if (encoding !== "json" && encoding !== "binary") {
      throw new Error("--encoding must be json or binary");
    }
    if (values.chain === "floor" && encoding !== "binary") {
      throw new Error("--chain floor streams binary frames only (the floor reads no JSON)");
    }
    const settle = Number(values.settle);
    if (!Number.isFinite(settle) || settle < 1)
      throw new Error("--settle must be 1 second or more");
    return {
      levels,
      chain: values.chain as "system" | "floor",
      encoding: encoding as Encoding,
      settleMs: settle * 1000,
    };
  });
}

const PROCESSES = ["detection", "gateway"] as const;
type Measured = (typeof PROCESSES)[number];
interface Memory {
  readonly heapUsed: number;
  /** What V8 has taken from the system for its heap, in use or not. */
  readonly heapTotal: number;
  readonly external: number;
  /** Anonymous resident memory; the whole resident set where the system does not tell it. */
  readonly rssAnon: number;
  readonly rss: number;
}
const WARM_UP_SESSIONS = 50;
const PERIOD_MS = 1000 / 30;

const options = parseOptions();
// Loaded once the command line is read: --help and a refused option answer at once, without
// loading the system the benchmark drives.
const { createSession, createTenant, exampleYaml, publishMoveSpec } = await import(
  "../../test/detection/support/session-api.js"
);
const { readFrames } = await import("../../test/movespec/support/recordings.js");
const { startTestSystem } = await import("../../test/support/system.js");
const { startLiveFloor } = await import("./floor/live-floor-chain.js");
const { binaryBatchMessage, inBatches, loopedTime, openStream, prepareFrames } = await import(
  "./load.js"
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** A live session streaming at 30 fps from `start` in the recording until `stop`. */
interface Streaming {
  readonly socket: BenchSocket;
  stop(): void;
}

function frameMessage(prepared: PreparedFrames, seq: number, encoding: Encoding): string | Buffer {
  if (encoding === "binary") return binaryBatchMessage(prepared, seq, 1);
  const keypoints = prepared.keypointsJson[seq % prepared.frames.length];
  return `{"type":"frame","seq":${seq},"t":${loopedTime(prepared, seq)},"keypoints":${keypoints}}`;
}

/** `count` streams opened and attached (hello -> ready), each with its session's id. */
type Connect = (count: number) => Promise<{ readonly id: string; readonly socket: BenchSocket }[]>;

/** Through the system: sessions created through the API, their streams through the gateway. */
function systemStreams(tenant: TestTenant, movespecId: string): Connect {
  return async (count) => {
    const created = await inBatches(Array.from({ length: count }), 16, () =>
      createSession(tenant, { movespec_id: movespecId, mode: "live" }),
    );
    return inBatches(created, 32, async (session) => ({
      id: session.session_id,
      socket: await openStream(
        session.stream_url,
        session.runtime_token,
        undefined,
        options.encoding,
      ),
    }));
  };
}

/** Through the floor: streams of made-up session ids (the floor checks nothing). */
function floorStreams(gatewayPort: number): Connect {
  let next = 0;
  return (count) =>
    inBatches(
      Array.from({ length: count }, () => `floor-${next++}`),
      32,
      async (id) => ({
        id,
        socket: await openStream(
          `ws://127.0.0.1:${gatewayPort}/api/detection/sessions/${id}/stream`,
          "floor",
          undefined,
          "binary",
        ),
      }),
    );
}

async function openSessions(
  connect: Connect,
  prepared: PreparedFrames,
  count: number,
  problems: string[],
): Promise<Streaming[]> {
  const opened = await connect(count);
  return opened.map(({ id, socket }) => {
    socket.onText((text) => {
      if (text.startsWith('{"type":"error"') || text.startsWith('{"type":"warning"')) {
        problems.push(text.slice(0, 200));
      }
    });
    let closing = false;
    socket.ws.on("close", (code) => {
      if (!closing) problems.push(`session ${id} closed with ${code}`);
    });
    // Users are not in step: each session starts at its own point of the recording and its own
    // moment of the 33 ms period.
    let seq = Math.floor(Math.random() * prepared.frames.length);
    let timer: NodeJS.Timeout | undefined;
    const start = setTimeout(() => {
      timer = setInterval(() => {
        if (socket.ws.readyState === socket.ws.OPEN) {
          socket.ws.send(frameMessage(prepared, seq, options.encoding));
          seq += 1;
        }
      }, PERIOD_MS);
    }, Math.random() * PERIOD_MS);
    return {
      socket,
      stop() {
        closing = true;
        clearTimeout(start);
        clearInterval(timer);
        socket.ws.close(1000);
      },
    };
  });
}

/** Memory of each measured process after it collected all its garbage. */
async function probe(
  processes: Map<Measured, ChildProcess>,
  dir: string,
): Promise<Map<Measured, Memory>> {
  const result = new Map<Measured, Memory>();
  await Promise.all(
    PROCESSES.map(async (name) => {
      const child = processes.get(name);
      if (!child?.pid) throw new Error(`no ${name} process`);
      const file = join(dir, `${child.pid}.json`);
      await rm(file, { force: true });
      child.kill("SIGUSR2");
      for (let waited = 0; ; waited += 50) {
        const text = await readFile(file, "utf8").catch(() => undefined);
        if (text) {
          const usage = JSON.parse(text) as Omit<Memory, "rssAnon"> & { rssAnon?: number };
          result.set(name, {
            heapUsed: usage.heapUsed,
            heapTotal: usage.heapTotal,
            external: usage.external,
            rssAnon: usage.rssAnon ?? usage.rss,
            rss: usage.rss,
          });
          return;
        }
        if (waited > 30_000) throw new Error(`${name} did not report its memory within 30 s`);
        await sleep(50);
      }
    }),
  );
  return result;
}

/** The chain the sessions go through, its measured processes, and how to stop it. */
interface Chain {
  readonly connect: Connect;
  readonly processes: Map<Measured, ChildProcess>;
  stop(): Promise<void>;
}

/** The whole system, detection and the gateway with the probe (the embedded store, the services). */
async function startSystemChain(probeEnv: Record<string, string>): Promise<Chain> {
  const system = await startTestSystem({
    env: { LOG_LEVEL: "info" },
    serviceEnv: {
      detection: { DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100000", ...probeEnv },
      gateway: probeEnv,
    },
    startTimeoutMs: 120_000,
  });
  try {
    const tenant = await createTenant(system);
    const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
    const processes = new Map<Measured, ChildProcess>();
    for (const name of PROCESSES) {
      const child = system.processes.find((process) => process.name === name)?.child;
      if (child) processes.set(name, child);
    }
    return { connect: systemStreams(tenant, movespecId), processes, stop: () => system.stop() };
  } catch (error) {
    await system.stop();
    throw error;
  }
}

/** live-floor.bench.ts's floor detection and gateway, under mutual TLS, with the probe. */
async function startFloorChain(probeEnv: Record<string, string>): Promise<Chain> {
  const floor = await startLiveFloor({ detection: probeEnv, gateway: probeEnv });
  return {
    connect: floorStreams(floor.gateway.port),
    processes: new Map([
      ["detection", floor.detection.child],
      ["gateway", floor.gateway.child],
    ]),
    stop: floor.stop,
  };
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "mds-memory-"));
  const probeEnv = {
    NODE_OPTIONS: `--import tsx --import ${fileURLToPath(new URL("../support/memory-probe.ts", import.meta.url))}`,
    MEMORY_PROBE_DIR: dir,
    ...(process.env.MEMORY_PROBE_SNAPSHOT_DIR
      ? { MEMORY_PROBE_SNAPSHOT_DIR: process.env.MEMORY_PROBE_SNAPSHOT_DIR }
      : {}),
  };
  const chain = await (options.chain === "floor" ? startFloorChain : startSystemChain)(probeEnv);
  const problems: string[] = [];
  const open: Streaming[] = [];
  try {
    const prepared = prepareFrames(readFrames("m01_s01"), []);
    process.stdout.write(
      `memory per open live session (${options.encoding} frames at 30 fps through the ${options.chain === "floor" ? "floor's gateway and detection" : "gateway"}), after a full garbage collection\n`,
    );

    const warmUp = await openSessions(chain.connect, prepared, WARM_UP_SESSIONS, problems);
    await sleep(options.settleMs);
    for (const session of warmUp) session.stop();
    await sleep(3000);

    const levels = [0, ...options.levels];
    const measured: Map<Measured, Memory>[] = [];
    for (const level of levels) {
      open.push(...(await openSessions(chain.connect, prepared, level - open.length, problems)));
      await sleep(level === 0 ? 1000 : options.settleMs);
      const memory = await probe(chain.processes, dir);
      measured.push(memory);
      const cells = PROCESSES.map((name) => {
        const m = memory.get(name) as Memory;
        return `${name} heap ${mb(m.heapUsed)} MB (of ${mb(m.heapTotal)}), external ${mb(m.external)} MB, anonymous resident ${mb(m.rssAnon)} MB, resident ${mb(m.rss)} MB`;
      });
      process.stdout.write(`  ${String(level).padStart(5)} sessions: ${cells.join("; ")}\n`);
    }

    process.stdout.write("\nper session added (growth / sessions added), KB:\n");
    process.stdout.write(
      `  ${"from -> to".padEnd(14)} ${PROCESSES.map((name) => `${name}: heap, external, anon. resident`.padEnd(46)).join(" ")} both: heap + external, anon. resident, resident\n`,
    );
    for (let i = 1; i < levels.length; i += 1) {
      const added = levels[i] - levels[i - 1];
      let retained = 0;
      let anonymous = 0;
      let resident = 0;
      const cells = PROCESSES.map((name) => {
        const before = measured[i - 1].get(name) as Memory;
        const after = measured[i].get(name) as Memory;
        const per = (field: keyof Memory) => (after[field] - before[field]) / added;
        retained += per("heapUsed") + per("external");
        anonymous += per("rssAnon");
        resident += per("rss");
        return `${kb(per("heapUsed"))}, ${kb(per("external"))}, ${kb(per("rssAnon"))}`.padEnd(46);
      });
      process.stdout.write(
        `  ${`${levels[i - 1]} -> ${levels[i]}`.padEnd(14)} ${cells.join(" ")} ${kb(retained)}, ${kb(anonymous)}, ${kb(resident)}\n`,
      );
    }
    if (problems.length > 0) {
      process.stdout.write(`\nFAIL: ${problems.length} problems, first: ${problems[0]}\n`);
      return 1;
    }
    process.stdout.write("\nevery session streamed without an error, a warning or a close\n");
    return 0;
  } finally {
    for (const session of open) session.stop();
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
