/**
 * The realtime benchmark's two scenarios (live capacity, replay throughput), against a gateway
 * or straight to a replica, plus per-process CPU accounting. See realtime.bench.ts.
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { TestTenant } from "../../test/detection/support/session-api.js";
import type { TestSystem } from "../../test/support/system.js";
import {
  helperThreadsCpuSeconds,
  meanWhile,
  metric,
  residentBytes,
  scrapeMetrics,
} from "../support/process-stats.js";
import {
  type BenchSocket,
  batchMessage,
  binaryBatchMessage,
  type Encoding,
  inBatches,
  openStream,
  type PreparedFrames,
  percentile,
  type StreamTls,
} from "./load.js";

/** Frames that arrive before this are not timed (connections settle, JIT warms up). */
const WARM_UP_MS = 2000;

export interface Session {
  readonly session_id: string;
  readonly runtime_token: string;
  readonly stream_url: string;
}

export interface Target {
  readonly name: "gateway" | "direct";
  url(session: Session): string;
  /** A replica's own listener answers only the gateway's certificate (mutual TLS). */
  readonly tls?: StreamTls;
}

async function createSessions(
  tenant: TestTenant,
  movespecId: string,
  mode: string,
  count: number,
): Promise<Session[]> {
  return inBatches(Array.from({ length: count }), 16, async () => {
    const response = await tenant.call("POST", "/api/detection/sessions", {
      project_id: tenant.projectId,
      movespec_id: movespecId,
      mode,
    });
    if (response.status !== 201)
      throw new Error(`session: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as Session;
  });
}

/** CPU seconds used so far by each process of the system (Linux /proc). */
export function processCpu(system: TestSystem): Map<string, number> {
  const ticks = 100;
  const usage = new Map<string, number>();
  for (const child of system.processes) {
    try {
      const stat = readFileSync(`/proc/${child.child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      usage.set(child.name, (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // not on Linux, or the process is gone
    }
  }
  return usage;
}

/** CPU seconds the whole machine has been busy (Linux /proc/stat). */
export function machineBusy(): number {
  try {
    const fields = readFileSync("/proc/stat", "utf8")
      .split("\n")[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return (total - fields[3] - (fields[4] ?? 0)) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds each process spent between two `processCpu` readings. */
export function cpuSpentPerProcess(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [name, seconds] of after) spent.set(name, seconds - (before.get(name) ?? 0));
  return spent;
}

export function cpuSpent(
  before: Map<string, number>,
  after: Map<string, number>,
  machine: { busy: number; generator: number },
): string {
  let ours = machine.generator;
  const parts = [...after].map(([name, seconds]) => {
    const spent = seconds - (before.get(name) ?? 0);
    ours += spent;
    return `${name} ${spent.toFixed(1)}`;
  });
  // What else ran on the machine meanwhile (other users' work skews a shared machine's figures).
  parts.push(
    `load generator ${machine.generator.toFixed(1)}`,
    `other processes ${(machine.busy - ours).toFixed(1)}`,
  );
  return parts.join(", ");
}

/**
 * Event-loop delay (p99 and max, ms) of the detection replica and the gateway since the last
 * scrape of their /metrics (prom-client resets the histogram at every scrape).
 */
async function loopLag(system: TestSystem): Promise<string> {
  const read = async (name: string, url: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const value = (metric: string) =>
      (1000 * Number(new RegExp(`^${metric}\\S* ([\\d.e+-]+)`, "m").exec(text)?.[1])).toFixed(1);
    return `${name} p99 ${value("nodejs_eventloop_lag_p99_seconds")} max ${value("nodejs_eventloop_lag_max_seconds")}`;
  };
  return (
    await Promise.all([
      read("detection", system.services.detection.adminUrl),
      read("gateway", system.gatewayAdminUrl),
    ])
  ).join(", ");
}

export interface LiveResult {
  readonly sessions: number;
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly framesSent: number;
  readonly problems: number;
  readonly cpuSeconds: number;
  readonly systemCpu: string;
  /** Event-loop delay of the system's processes and of this load generator over the window. */
  readonly loopLag: string;
  /** CPU µs per frame sent in the window, per process (and the load generator). */
  readonly cpuPerFrame: Map<string, number>;
  /**
   * Of cpuPerFrame, what detection's and the gateway's threads other than the main one used (V8's
   * garbage-collection and compiler helpers, libuv's pool), µs per frame.
   */
  readonly helperCpuPerFrame: Map<string, number>;
  /** Resident memory per open session, bytes: the growth from before the sessions to the window. */
  readonly bytesPerSession: Map<string, number>;
  /** V8 heap in use per open session, bytes (the same growth, from the processes' metrics). */
  readonly heapPerSession: Map<string, number>;
}

/** V8 heap in use (prom-client's nodejs_heap_size_used_bytes) of detection and the gateway. */
async function streamHeap(system: TestSystem): Promise<Map<string, number>> {
  const read = async (url: string) =>
    metric(await scrapeMetrics(url), "nodejs_heap_size_used_bytes");
  return new Map([
    ["detection", await read(system.services.detection.adminUrl)],
    ["gateway", await read(system.gatewayAdminUrl)],
  ]);
}

/** Live sessions sending at 30 fps, as liveLevel drives them (startLiveSending). */
export interface LiveSending {
  /** Frames sent and events timed count only while this is set. */
  measuring: boolean;
  readonly framesInWindow: number;
  /** Stops sending, closes the sockets; the latencies (ms, sorted) timed while measuring. */
  stop(): Promise<{ samples: number[]; framesSent: number; problems: number }>;
}

/**
 * Starts every socket sending one frame per message at 30 fps, each from its own point of the
 * recording and at its own offset in the 33 ms period (users are not in step); times each frame
 * that makes an event to its first event, and counts warnings, errors and unexpected closes.
 */
export function startLiveSending(
  sockets: readonly BenchSocket[],
  prepared: PreparedFrames,
  encoding: Encoding,
): LiveSending {
  const messages = encoding === "binary" ? prepared.frameBinaries : prepared.frameMessages;
  const samples: number[] = [];
  const timers: NodeJS.Timeout[] = [];
  const periodMs = 1000 / 30;
  let problems = 0;
  let framesSent = 0;
  const state = {
    measuring: false,
    framesInWindow: 0,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await sleep(200);
      for (const socket of sockets) socket.ws.close(1000);
      await sleep(1500);
      samples.sort((a, b) => a - b);
      return { samples, framesSent, problems };
    },
  };
  sockets.forEach((socket, index) => {
    const sentAt = new Map<number, number>();
    socket.onText((text) => {
      if (text.startsWith('{"type":"event"')) {
        const seq = (JSON.parse(text) as { event: { seq: number } }).event.seq;
        const at = sentAt.get(seq);
        if (at !== undefined) {
          sentAt.delete(seq);
          if (state.measuring) samples.push(performance.now() - at);
        }
      } else if (text.startsWith('{"type":"error"') || text.startsWith('{"type":"warning"')) {
        problems += 1;
      }
    });
    socket.ws.on("close", (code) => {
      if (code !== 1000 && code !== 1005) problems += 1;
    });
    // Each session starts at its own point of the recording (first 10 s).
    let next = (index * 7919) % 300;
    const start = setTimeout(
      () => {
        const send = () => {
          if (next >= prepared.frames.length || socket.ws.readyState !== socket.ws.OPEN) return;
          const seq = prepared.frames[next].seq;
          if (prepared.eventSeqs.has(seq)) sentAt.set(seq, performance.now());
          socket.ws.send(messages[next]);
          next += 1;
          framesSent += 1;
          if (state.measuring) state.framesInWindow += 1;
        };
        send();
        timers.push(setInterval(send, periodMs));
      },
      (index / sockets.length) * periodMs,
    );
    timers.push(start);
  });
  return state;
}

/** Resident bytes of the processes a stream goes through. */
function streamRss(system: TestSystem): Map<string, number> {
  const rss = new Map<string, number>();
  for (const child of system.processes) {
    if (child.name.startsWith("detection") || child.name === "gateway") {
      rss.set(child.name, residentBytes(child.child.pid));
    }
  }
  return rss;
}

/** CPU seconds of the helper threads (not the main one) of the processes a stream goes through. */
function streamHelperCpu(system: TestSystem): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const child of system.processes) {
    if (child.name.startsWith("detection") || child.name === "gateway") {
      cpu.set(child.name, helperThreadsCpuSeconds(child.child.pid));
    }
  }
  return cpu;
}

/** The stream processes' resident memory and V8 heap in use, by process name. */
export interface StreamMemory {
  readonly rss: Map<string, number>;
  readonly heap: Map<string, number>;
}

/** What the stream processes hold now (before any session: their idle memory). */
export async function streamMemory(system: TestSystem): Promise<StreamMemory> {
  return { rss: streamRss(system), heap: await streamHeap(system) };
}

/**
 * `count` live sessions for `seconds`. Memory per session: the mean resident set over the window
 * (sampled every 250 ms) less `idle` (what the processes held before their first level: a later
 * level or trial would otherwise measure from a resident set that did not shrink back) or,
 * without it, less this level's start; the heap at the window's end less the same.
 */
export async function liveLevel(
  system: TestSystem,
  tenant: TestTenant,
  movespecId: string,
  prepared: PreparedFrames,
  target: Target,
  count: number,
  seconds: number,
  encoding: Encoding = "json",
  idle?: StreamMemory,
): Promise<LiveResult> {
  const { rss: rssBefore, heap: heapBefore } = idle ?? (await streamMemory(system));
  const sessions = await createSessions(tenant, movespecId, "live", count);
  const sockets: BenchSocket[] = await inBatches(sessions, 32, (session) =>
    openStream(target.url(session), session.runtime_token, target.tls, encoding),
  );
  const cpuBefore = process.cpuUsage();
  const live = startLiveSending(sockets, prepared, encoding);
  await sleep(WARM_UP_MS);
  live.measuring = true;
  const systemBefore = processCpu(system);
  const helpersBefore = streamHelperCpu(system);
  const busyBefore = machineBusy();
  const generatorBefore = process.cpuUsage();
  await loopLag(system); // resets the windows
  const generatorLag = monitorEventLoopDelay({ resolution: 5 });
  generatorLag.enable();
  const rssDuring = await meanWhile(seconds * 1000, 250, () => streamRss(system));
  live.measuring = false;
  const generatorUsage = process.cpuUsage(generatorBefore);
  const systemAfter = processCpu(system);
  const helpersAfter = streamHelperCpu(system);
  // First: every scrape of /metrics resets the event-loop delay histogram, the heap's included
  // (it read 0.0 for runs where the heap's scrape came first).
  const systemLags = await loopLag(system);
  const heapDuring = await streamHeap(system);
  const cpuPerFrame = cpuSpentPerProcess(systemBefore, systemAfter);
  cpuPerFrame.set("load generator", (generatorUsage.user + generatorUsage.system) / 1e6);
  for (const [name, spent] of cpuPerFrame) {
    cpuPerFrame.set(name, (spent * 1e6) / live.framesInWindow);
  }
  const helperCpuPerFrame = new Map<string, number>();
  for (const [name, seconds] of helpersAfter) {
    const spent = seconds - (helpersBefore.get(name) ?? Number.NaN);
    helperCpuPerFrame.set(name, (spent * 1e6) / live.framesInWindow);
  }
  const bytesPerSession = new Map<string, number>();
  for (const [name, bytes] of rssDuring) {
    bytesPerSession.set(name, (bytes - (rssBefore.get(name) ?? Number.NaN)) / count);
  }
  const heapPerSession = new Map<string, number>();
  for (const [name, bytes] of heapDuring) {
    heapPerSession.set(name, (bytes - (heapBefore.get(name) ?? Number.NaN)) / count);
  }
  const systemCpu = cpuSpent(systemBefore, systemAfter, {
    busy: machineBusy() - busyBefore,
    generator: (generatorUsage.user + generatorUsage.system) / 1e6,
  });
  generatorLag.disable();
  const lags = `${systemLags}, load generator p99 ${(generatorLag.percentile(99) / 1e6).toFixed(1)} max ${(generatorLag.max / 1e6).toFixed(1)}`;
  const cpu = process.cpuUsage(cpuBefore);
  const { samples, framesSent, problems } = await live.stop();
  return {
    sessions: count,
    samples: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.at(-1) ?? Number.NaN,
    framesSent,
    problems,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    systemCpu,
    loopLag: lags,
    cpuPerFrame,
    helperCpuPerFrame,
    bytesPerSession,
    heapPerSession,
  };
}

export async function replayRun(
  tenant: TestTenant,
  movespecId: string,
  prepared: PreparedFrames,
  target: Target,
  total: number,
  batch: number,
  encoding: Encoding = "json",
): Promise<{ framesPerSecond: number; accepted: number }> {
  const [session] = await createSessions(tenant, movespecId, "replay", 1);
  const socket = await openStream(target.url(session), session.runtime_token, target.tls, encoding);
  const message = encoding === "binary" ? binaryBatchMessage : batchMessage;
  let acked = -1;
  socket.onText((text) => {
    if (text.startsWith('{"type":"ack"'))
      acked = (JSON.parse(text) as { last_seq: number }).last_seq;
  });
  // The server pauses reading at DETECTION_MAX_UNACKED_FRAMES (12,000) and TCP holds the client
  // back: a replay client that can re-read its source from the last ack needs no smaller window
  // of its own. Below the server's pause the client waits for acks, each a checkpoint's store
  // round trip away (2026-11-24: 8,000 frames gave 161,000 frames/s, 30,000 gave 219,000-253,000).
  const maxUnacked = Number(process.env.BENCH_REPLAY_WINDOW ?? 30_000);
  const started = performance.now();
  for (let seq = 0; seq < total; seq += batch) {
    while (seq - acked > maxUnacked || socket.ws.bufferedAmount > 4 * 1024 * 1024) await sleep(1);
    socket.ws.send(message(prepared, seq, Math.min(batch, total - seq)));
  }
  socket.ws.send('{"type":"finalize"}');
  const end = JSON.parse(await socket.waitFor("end", 300_000)) as { accepted_frames_total: number };
  const seconds = (performance.now() - started) / 1000;
  socket.ws.close();
  return {
    framesPerSecond: end.accepted_frames_total / seconds,
    accepted: end.accepted_frames_total,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
