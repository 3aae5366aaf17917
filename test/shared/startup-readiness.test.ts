/**
 * A service that cannot start says why on its admin port: `/readyz?verbose` names the database's
 * connection error while MongoDB does not answer, and the start-up work's last error (with its
 * attempts) while that is retried, so an operator need not dig the cause out of the logs.
 */
import { createServer } from "node:net";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import { readServiceConfig } from "@movement-detection/shared/config";
import {
  type RunningService,
  runService,
  type ServiceDefinition,
} from "@movement-detection/shared/runtime";
import { expect } from "chai";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { eventually } from "../support/eventually.js";

interface Report {
  status: number;
  body: {
    ready: boolean;
    phase: string;
    startup_failure?: { error: string; attempts: number; since: string; retry_in_ms: number };
    dependencies: { name: string; status: string; since?: string; error?: string }[];
  };
}

async function readiness(service: RunningService): Promise<Report> {
  const response = await fetch(`http://127.0.0.1:${service.adminPort}/readyz?verbose`);
  return { status: response.status, body: (await response.json()) as Report["body"] };
}

function configFor(mongodbUri: string) {
  return readServiceConfig(
    {
      MONGODB_URI: mongodbUri,
      MONGODB_TIMEOUT_MS: "300",
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: "0",
      ADMIN_PORT: "0",
      INTERNAL_TRANSPORT: "h2c",
      LOG_LEVEL: "silent",
    },
    { name: "auth", grpcPort: 0, adminPort: 0 },
  );
}

/** A service whose start-up work fails `failures` times with `message`, then succeeds. */
function failingStart(
  failures: number,
  message: string,
): ServiceDefinition<ReturnType<typeof configFor>> {
  let calls = 0;
  return {
    name: "auth",
    services: [Health],
    async start() {
      calls += 1;
      if (calls <= failures) throw new Error(message);
      return { register: () => undefined };
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("readiness while a service cannot start", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  const running: RunningService[] = [];

  before(async () => {
    mongo = await startEmbeddedMongo();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop()));
  });
  after(async () => {
    await mongo.stop();
  });

  it("names MongoDB's connection error while it does not answer", async () => {
    const port = await freePort();
    const service = await runService(
      failingStart(0, "unused"),
      configFor(`mongodb://127.0.0.1:${port}/?directConnection=true`),
    );
    running.push(service);
    let report: Report | undefined;
    await eventually(async () => {
      report = await readiness(service);
      return report.body.dependencies[0].error !== undefined;
    }, 10_000);
    expect(report?.status).to.equal(503);
    expect(report?.body.phase).to.equal("starting");
    expect(report?.body.startup_failure).to.equal(undefined);
    const [database] = report?.body.dependencies ?? [];
    expect(database.name).to.equal("mongodb");
    expect(database.status).to.equal("UNREACHABLE");
    expect(database.error).to.match(/ECONNREFUSED|connect/);
    expect(Number.isNaN(Date.parse(database.since ?? ""))).to.equal(false);
  });

  it("names the start-up work's last error and its attempts until it succeeds", async () => {
    const message = "no signing key in /etc/mds/signing-keys";
    const service = await runService(failingStart(2, message), configFor(mongo.uri));
    running.push(service);
    let report: Report | undefined;
    await eventually(async () => {
      report = await readiness(service);
      return report.body.startup_failure !== undefined;
    }, 10_000);
    expect(report?.status).to.equal(503);
    expect(report?.body.phase).to.equal("starting");
    expect(report?.body.startup_failure?.error).to.equal(message);
    expect(report?.body.startup_failure?.attempts).to.be.within(1, 2);
    expect(report?.body.startup_failure?.retry_in_ms).to.be.within(250, 500);
    // The database is not the cause: it answered.
    expect(report?.body.dependencies[0]).to.include({ name: "mongodb", status: "SERVING" });

    await service.serving;
    const ready = await readiness(service);
    expect(ready.status).to.equal(200);
    expect(ready.body.phase).to.equal("serving");
    expect(ready.body.startup_failure).to.equal(undefined);
    expect(ready.body.dependencies[0]).to.include({ name: "mongodb", status: "SERVING" });
  });
});
