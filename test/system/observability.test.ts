/**
 * Observability of a running system (issue 17). Tracing across every hop: the whole system
 * exports its spans by OTLP/HTTP protobuf to a receiver in this test, as it would to a collector. One public request with a W3C traceparent
 * yields one connected trace: the gateway's server span, its gRPC client span, the service's
 * server span, that service's calls to other services, and the MongoDB commands of each; the
 * realtime stream's attach is traced the same way from the gateway into the detection replica.
 * And the Grafana dashboard (deploy/grafana/) queries only metrics that the processes export.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { openRaw } from "../detection/support/raw-stream.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
} from "../detection/support/session-api.js";
import { eventually } from "../support/eventually.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import { exportedFamily, metricFamilies, metricNamesOf } from "../support/promql-metrics.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const SERVER = 2;
const CLIENT = 3;

function traceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString("hex");
  const parentId = randomBytes(8).toString("hex");
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

/** Every span's parent was exported too (or is the caller's span): nothing is still missing. */
function connected(spans: readonly ReceivedSpan[], rootParent: string): boolean {
  const ids = new Set(spans.map((span) => span.spanId));
  return spans.every((span) => ids.has(span.parentSpanId) || span.parentSpanId === rootParent);
}

/** Every span of the trace reaches the caller's span through parents that were all exported. */
function expectConnected(spans: readonly ReceivedSpan[], rootParent: string): void {
  const ids = new Set(spans.map((span) => span.spanId));
  for (const span of spans) {
    const parentKnown = ids.has(span.parentSpanId) || span.parentSpanId === rootParent;
    expect(parentKnown, `${span.service} "${span.name}" has a parent in the trace`).to.equal(true);
  }
  expect(spans.filter((span) => span.parentSpanId === rootParent)).to.have.length(1);
}

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId);
}

function only(spans: readonly ReceivedSpan[], what: string, match: (s: ReceivedSpan) => boolean) {
  const found = spans.filter(match);
  expect(found, `${what}: ${spans.map((s) => `${s.service}:${s.name}`).join(", ")}`).to.have.length(
    1,
  );
  return found[0];
}

const isStore = (span: ReceivedSpan) => span.attributes["db.system.name"] === "mongodb";

const DASHBOARD = new URL("../../deploy/grafana/movement-detection.json", import.meta.url);

describe("observability: one connected trace per request, and a dashboard of real metrics", function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let system: TestSystem;
  let tenant: TestTenant;
  let movespecId: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    system = await startTestSystem({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" },
    });
    tenant = await createTenant(system);
    movespecId = (await publishMoveSpec(tenant, exampleYaml("squat"))).movespecId;
  });

  after(async () => {
    await system?.stop();
    await receiver?.close();
  });

  it("POST /api/detection/sessions: gateway -> detection -> authoring and auth, with their store calls", async () => {
    const caller = traceparent();
    const response = await tenant.call(
      "POST",
      "/api/detection/sessions",
      { project_id: tenant.projectId, movespec_id: movespecId },
      { traceparent: caller.header },
    );
    expect(response.status).to.equal(201);
    expect(response.headers.get("traceresponse")).to.match(
      new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`),
    );

    const ofTrace = () => receiver.spans.filter((span) => span.traceId === caller.traceId);
    const has = (service: string, name: string) =>
      ofTrace().some((span) => span.service === service && span.name === name);
    await receiver.waitFor(
      () =>
        has("gateway", "POST /api/detection/sessions") &&
        has("detection", "authoring.v1.AuthoringService/ResolveVersion") &&
        has("authoring", "authoring.v1.AuthoringService/ResolveVersion") &&
        has("auth", "auth.v1.AuthService/MintRuntimeToken") &&
        ofTrace().some((span) => span.service === "detection" && isStore(span)) &&
        ofTrace().some((span) => span.service === "authoring" && isStore(span)) &&
        connected(ofTrace(), caller.parentId),
      20_000,
    );
    const spans = ofTrace();
    expectConnected(spans, caller.parentId);

    const root = only(
      spans,
      "the gateway's server span",
      (s) => s.parentSpanId === caller.parentId,
    );
    expect(root).to.include({ service: "gateway", kind: SERVER });
    expect(root.attributes).to.include({
      "http.route": "/api/detection/sessions",
      "http.response.status_code": 201,
    });
    const createCall = only(
      childrenOf(spans, root),
      "the gateway's call to detection",
      (s) => s.name === "detection.v1.DetectionService/CreateSession",
    );
    expect(createCall).to.include({ service: "gateway", kind: CLIENT });
    const createServed = only(childrenOf(spans, createCall), "detection's server span", () => true);
    expect(createServed).to.include({ service: "detection", kind: SERVER });

    // detection -> authoring (and its store) and detection -> auth, under detection's span.
    const underDetection = childrenOf(spans, createServed);
    const resolve = only(
      underDetection,
      "detection's call to authoring",
      (s) => s.name === "authoring.v1.AuthoringService/ResolveVersion",
    );
    const resolved = only(childrenOf(spans, resolve), "authoring's server span", () => true);
    expect(resolved).to.include({ service: "authoring", kind: SERVER });
    expect(childrenOf(spans, resolved).filter(isStore)).to.not.be.empty;
    const mint = only(
      underDetection,
      "detection's call to auth",
      (s) => s.name === "auth.v1.AuthService/MintRuntimeToken",
    );
    expect(only(childrenOf(spans, mint), "auth's server span", () => true)).to.include({
      service: "auth",
      kind: SERVER,
    });
    const detectionStore = underDetection.filter(isStore);
    expect(detectionStore, "detection's own MongoDB commands").to.not.be.empty;
    expect(detectionStore[0].attributes).to.include({ "db.namespace": "mds_detection" });

    // The same trace id in the log lines of every process that served the request.
    for (const name of ["gateway", "detection", "authoring", "auth"]) {
      expect(
        system.logsOf(name).some((line) => line.trace_id === caller.traceId),
        `${name} logged the trace id`,
      ).to.equal(true);
    }
    const access = system
      .logsOf("gateway")
      .filter((line) => line.msg === "request" && line.trace_id === caller.traceId);
    expect(access).to.have.length(1);
    expect(access[0]).to.include({
      level: "info",
      method: "POST",
      route: "/api/detection/sessions",
      status: 201,
      request_id: response.headers.get("x-request-id"),
    });
  });

  it("an error envelope names the trace (details.trace_id), and the failing span is marked", async () => {
    const caller = traceparent();
    const response = await tenant.call(
      "GET",
      "/api/detection/sessions/0190b8d4-5a2b-7c3d-8e4f-a1b2c3d4e5f6",
      undefined,
      { traceparent: caller.header },
    );
    expect(response.status).to.equal(404);
    expect(response.body.error.details).to.include({
      trace_id: caller.traceId,
      request_id: response.headers.get("x-request-id"),
    });
    await receiver.waitFor(
      (spans) =>
        spans.some(
          (s) => s.traceId === caller.traceId && s.service === "detection" && s.kind === SERVER,
        ),
      20_000,
    );
  });

  it("the stream attach: gateway -> detection replica, with the attach's store calls", async () => {
    const session = await createSession(tenant, { movespec_id: movespecId, mode: "replay" });
    const caller = traceparent();
    const stream = await openRaw(session.stream_url, { traceparent: caller.header });
    stream.send({ type: "hello", runtime_token: session.runtime_token });
    await stream.next("ready");
    stream.ws.close(1000, "done");
    await stream.closed();

    const ofTrace = () => receiver.spans.filter((span) => span.traceId === caller.traceId);
    await receiver.waitFor(
      () =>
        ofTrace().some((s) => s.service === "gateway" && s.kind === SERVER) &&
        ofTrace().some((s) => s.service === "detection" && s.kind === SERVER) &&
        ofTrace().some((s) => s.service === "detection" && isStore(s)) &&
        connected(ofTrace(), caller.parentId),
      20_000,
    );
    const spans = ofTrace();
    expectConnected(spans, caller.parentId);
    const gatewaySpan = only(
      spans,
      "the gateway's stream span",
      (s) => s.parentSpanId === caller.parentId,
    );
    expect(gatewaySpan).to.include({
      service: "gateway",
      name: "WS /api/detection/sessions/:session_id/stream",
    });
    expect(gatewaySpan.attributes).to.include({ "http.response.status_code": 101 });
    const attachSpan = only(childrenOf(spans, gatewaySpan), "detection's attach span", () => true);
    expect(attachSpan).to.include({ service: "detection", kind: SERVER });
    expect(attachSpan.attributes).to.include({ "detection.attach.outcome": "attached" });
    expect(childrenOf(spans, attachSpan).filter(isStore)).to.not.be.empty;

    // One access line when the stream attached and one when it detached, both with the trace id
    // (the detach is logged once the gateway has seen the close, which may be after the client).
    const streamLines = () =>
      system
        .logsOf("gateway")
        .filter(
          (line) => line.trace_id === caller.traceId && String(line.msg).startsWith("stream"),
        );
    await eventually(() => streamLines().some((line) => line.msg === "stream detached")).catch(
      () => {},
    );
    const lines = streamLines();
    expect(lines.map((line) => line.msg)).to.deep.equal(["stream attached", "stream detached"]);
    expect(lines[1]).to.include({
      level: "info",
      route: "/api/detection/sessions/:session_id/stream",
    });
    expect(lines[1].messages_in).to.equal(1);
    expect(lines[1].messages_out).to.be.at.least(1);
    expect(lines[1].close_code).to.equal(1000);
  });

  it("every metric the Grafana dashboard queries is one the processes export", async () => {
    const families = new Map<string, string>();
    const adminUrls = [
      system.gatewayAdminUrl,
      ...Object.values(system.services).map((service) => service.adminUrl),
    ];
    for (const url of adminUrls) {
      const exposition = await (await fetch(`${url}/metrics`)).text();
      for (const [name, type] of metricFamilies(exposition)) families.set(name, type);
    }
    const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const queried = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).flatMap((target) =>
        metricNamesOf(target.expr).map((name) => ({ panel: panel.title, name })),
      ),
    );
    expect(queried.length, "the dashboard's queries").to.be.above(15);
    for (const { panel, name } of queried) {
      expect(exportedFamily(name, families), `"${panel}" queries ${name}`).to.be.a("string");
    }
    // The check can fail: a misspelt name, or a histogram suffix on a counter, is caught.
    expect(
      metricNamesOf('sum(rate(http_requets_total{status=~"5.."}[5m])) by (route)'),
    ).to.deep.equal(["http_requets_total"]);
    expect(exportedFamily("http_requets_total", families)).to.equal(undefined);
    expect(exportedFamily("http_requests_total_bucket", families)).to.equal(undefined);
  });
});
