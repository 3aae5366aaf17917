/**
 * What the gateway logs about the services it depends on (gateway/readiness.ts): a system that is
 * starting (a service unreachable, then not serving until its database answers, then serving)
 * leaves no warning; a service that served and stops is a warning, once; coming back is info.
 * The health client answers a scripted sequence of statuses, one per check.
 */

import { HealthCheckResponse_ServingStatus as ServingStatus } from "@movement-detection/proto/grpc/health/v1";
import { expect } from "chai";
import { pino } from "pino";
import type { DependencyClient } from "../../gateway/clients.js";
import { watchDependencies } from "../../gateway/readiness.js";
import { eventually } from "../support/eventually.js";

type Answer = ServingStatus | "unreachable";

/** A dependency whose health checks answer `answers` in turn, then the last one for ever. */
function scripted(answers: readonly Answer[]): {
  dependency: DependencyClient;
  checks: () => number;
} {
  let checks = 0;
  const client = {
    async check() {
      const answer = answers[Math.min(checks, answers.length - 1)];
      checks += 1;
      if (answer === "unreachable") throw new Error("connect ECONNREFUSED 127.0.0.1:1");
      return { status: answer };
    },
  };
  return {
    dependency: {
      name: "auth",
      url: "https://127.0.0.1:1",
      client: client as unknown as DependencyClient["client"],
    },
    checks: () => checks,
  };
}

async function logsOf(answers: readonly Answer[]) {
  const lines: { level: number; msg: string; status: string }[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  const { dependency, checks } = scripted(answers);
  const watch = watchDependencies([dependency], { intervalMs: 1, timeoutMs: 1000, logger });
  try {
    await eventually(() => checks() > answers.length + 2, 5000, 5);
  } finally {
    watch.stop();
  }
  const level = (n: number) => pino.levels.labels[n];
  return lines.map((line) => `${level(line.level)} ${line.msg} ${line.status}`);
}

describe("gateway dependency watch: what it logs", () => {
  it("a service starting (unreachable, not serving, serving) leaves no warning", async () => {
    const lines = await logsOf([
      "unreachable",
      ServingStatus.NOT_SERVING,
      ServingStatus.NOT_SERVING,
      ServingStatus.SERVING,
    ]);
    expect(lines).to.deep.equal([
      "debug dependency not serving yet UNREACHABLE",
      "debug dependency not serving yet NOT_SERVING",
      "info dependency serving SERVING",
    ]);
  });

  it("a service that served and stops is one warning per change; coming back is info", async () => {
    const lines = await logsOf([
      ServingStatus.SERVING,
      ServingStatus.NOT_SERVING,
      "unreachable",
      "unreachable",
      ServingStatus.SERVING,
    ]);
    expect(lines).to.deep.equal([
      "info dependency serving SERVING",
      "warn dependency not serving NOT_SERVING",
      "warn dependency not serving UNREACHABLE",
      "info dependency serving SERVING",
    ]);
  });
});

describe("gateway dependency watch: when it is ready", () => {
  /** The report once every dependency was checked a few times, each answering `status`. */
  async function reportWith(
    statuses: Record<"auth" | "catalogue" | "authoring" | "detection", Answer>,
  ) {
    const logger = pino({ level: "silent" });
    const counters: (() => number)[] = [];
    const dependencies = (Object.entries(statuses) as [DependencyClient["name"], Answer][]).map(
      ([name, status]) => {
        const { dependency, checks } = scripted([status]);
        counters.push(checks);
        return { ...dependency, name };
      },
    );
    const watch = watchDependencies(dependencies, { intervalMs: 1, timeoutMs: 1000, logger });
    try {
      await eventually(() => counters.every((checks) => checks() > 2), 5000, 5);
      return watch.report();
    } finally {
      watch.stop();
    }
  }
  const { SERVING, NOT_SERVING } = ServingStatus;

  it("catalogue and authoring down: still ready, degraded (their routes answer 503)", async () => {
    const report = await reportWith({
      auth: SERVING,
      catalogue: "unreachable",
      authoring: NOT_SERVING,
      detection: SERVING,
    });
    expect(report).to.deep.include({
      ready: true,
      missing: [],
      degraded: ["catalogue unreachable", "authoring not_serving"],
    });
  });

  it("auth down, or no detection replica: not ready (no token, no session)", async () => {
    const noAuth = await reportWith({
      auth: "unreachable",
      catalogue: SERVING,
      authoring: SERVING,
      detection: SERVING,
    });
    expect(noAuth).to.deep.include({ ready: false, missing: ["auth unreachable"], degraded: [] });
    const noDetection = await reportWith({
      auth: SERVING,
      catalogue: SERVING,
      authoring: SERVING,
      detection: NOT_SERVING,
    });
    expect(noDetection.ready).to.equal(false);
    expect(noDetection.missing).to.deep.equal(["detection: no replica serving (1 configured)"]);
  });
});
