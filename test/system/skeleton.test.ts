import { createClient } from "@connectrpc/connect";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import { runWithRequestContext } from "@movement-detection/shared/logging";
import { expect } from "chai";
import WebSocket from "ws";
import { SERVICE_NAMES } from "../../deploy/local/stack.js";
import { grpcTransport } from "../../gateway/clients.js";
import { eventually } from "../support/eventually.js";
import { CLOCK_IS_FAKED } from "../support/faked-clock.js";
import { bufCurlHealthCheck, grpcHealthClient, grpcJsHealthCheck } from "../support/grpc-health.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { identityOf, tlsFilesOf } from "../support/workloads.js";

describe("walking skeleton (whole system)", function () {
  this.timeout(60_000);
  let system: TestSystem;

  before(async () => {
    system = await startTestSystem({ env: { ENVIRONMENT: "skeleton-test" } });
  });

  after(async () => {
    await system?.stop();
  });

  describe("health routes", () => {
    for (const path of ["/api/health", "/healthz"]) {
      it(`GET ${path} answers 200 with the spec's body`, async () => {
        const response = await fetch(`${system.gatewayUrl}${path}`);
        expect(response.status).to.equal(200);
        expect(response.headers.get("content-type")).to.match(/^application\/json/);
        expect(await response.json()).to.deep.equal({
          status: "ok",
          environment: "skeleton-test",
          role: "gateway",
        });
      });
    }
  });

  describe("request ids", () => {
    it("generates an X-Request-Id when the caller sends none", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/health`);
      expect(response.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
    });

    it("passes a sane caller id through, into the error body too", async () => {
      const response = await fetch(`${system.gatewayUrl}/no/such/route`, {
        headers: { "x-request-id": "client-abc.123" },
      });
      expect(response.headers.get("x-request-id")).to.equal("client-abc.123");
      const body = (await response.json()) as { error: { details: { request_id: string } } };
      expect(body.error.details.request_id).to.equal("client-abc.123");
    });

    it("replaces an id that could pollute logs or headers", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/health`, {
        headers: { "x-request-id": `${"a".repeat(200)}` },
      });
      const id = response.headers.get("x-request-id");
      expect(id).to.match(/^[0-9a-f-]{36}$/);
    });

    it("forwards the request id to services in call metadata and their logs", async () => {
      const client = createClient(
        Health,
        grpcTransport(identityOf(system, "gateway"), system.services.auth.grpcUrl, "auth", 5000),
      );
      const id = `propagation-${Date.now()}`;
      await runWithRequestContext({ requestId: id }, () => client.check({ service: "" }));
      await eventually(() =>
        system.logsOf("auth").some((line) => line.request_id === id && line.msg === "rpc"),
      );
    });
  });

  describe("error envelope on the real gateway", () => {
    it("answers unknown routes with 404 ROUTE_NOT_FOUND", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/nothing-here`);
      expect(response.status).to.equal(404);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body.error).to.include({ code: "not_found", retryable: false });
      expect(body.error.details).to.include({ reason: "ROUTE_NOT_FOUND" });
    });

    it("answers a wrong method with 405 and Allow", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/health`, { method: "DELETE" });
      expect(response.status).to.equal(405);
      expect(response.headers.get("allow")).to.equal("HEAD, GET, OPTIONS");
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body.error).to.include({ code: "method_not_allowed" });
    });

    it("answers CORS preflights for browser clients", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/health`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get("access-control-allow-origin")).to.equal("https://app.example");
      expect(response.headers.get("access-control-allow-headers")).to.contain("Authorization");
    });

    it("exposes the request id to browser scripts", async () => {
      const response = await fetch(`${system.gatewayUrl}/api/health`, {
        headers: { origin: "https://app.example" },
      });
      expect(response.headers.get("access-control-expose-headers")).to.contain("X-Request-Id");
    });

    it("refuses websocket upgrades on unknown paths with a 404 envelope", async () => {
      const socket = new WebSocket(`${system.gatewayUrl.replace("http", "ws")}/api/nowhere`);
      const status = await new Promise<number>((resolve, reject) => {
        socket.once("unexpected-response", (_request, response) =>
          resolve(response.statusCode ?? 0),
        );
        socket.once("open", () => reject(new Error("upgrade accepted")));
        socket.once("error", reject);
      });
      expect(status).to.equal(404);
    });
  });

  describe("grpc.health.v1 on every service", () => {
    for (const name of SERVICE_NAMES) {
      it(`${name}: SERVING to @grpc/grpc-js (grpc-health-check) and to buf curl`, async () => {
        const url = system.services[name].grpcUrl;
        const tls = tlsFilesOf(system, "operator");
        expect(await grpcJsHealthCheck(url, "", tls)).to.equal("SERVING");
        // buf is a Go binary: under faketime it reads the real clock (test/support/faked-clock.ts).
        if (!CLOCK_IS_FAKED) {
          expect(await bufCurlHealthCheck(url, "", tls)).to.deep.equal({ status: "SERVING" });
        }
      });
    }

    it("names each service's own API as SERVING and unknown names as NOT_FOUND", async () => {
      const url = system.services.authoring.grpcUrl;
      const tls = tlsFilesOf(system, "gateway");
      expect(await grpcJsHealthCheck(url, "authoring.v1.AuthoringService", tls)).to.equal(
        "SERVING",
      );
      const error = await grpcJsHealthCheck(url, "no.such.Service", tls).catch((e: unknown) => e);
      expect(error).to.have.property("code", 5);
    });

    it("streams the status on Watch", async () => {
      const client = grpcHealthClient(
        system.services.catalogue.grpcUrl,
        tlsFilesOf(system, "detection"),
      );
      const stream = client.watch({ service: "" });
      const first = await new Promise<{ status: string }>((resolve, reject) => {
        stream.once("data", resolve);
        stream.once("error", reject);
      });
      expect(first.status).to.equal("SERVING");
      stream.cancel();
      client.close();
    });

    it("exports Prometheus metrics on each admin port", async () => {
      const response = await fetch(`${system.gatewayAdminUrl}/metrics`);
      expect(response.status).to.equal(200);
      expect(await response.text()).to.contain("http_requests_total");
      const auth = await fetch(`${system.services.auth.adminUrl}/metrics`);
      expect(await auth.text()).to.contain("grpc_server_handled_total");
      expect((await fetch(`${system.services.auth.adminUrl}/readyz`)).status).to.equal(200);
    });

    it("labels failed calls with Connect's lower-case code name, like `ok`", async () => {
      const refused = await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: "mds_not_a_key_of_anyone_0123456789" }),
      });
      expect(refused.status).to.equal(401);
      const call = 'method="MintAccessToken",code="unauthenticated"';
      const gateway = await (await fetch(`${system.gatewayAdminUrl}/metrics`)).text();
      expect(gateway).to.match(new RegExp(`^grpc_client_handled_total\\{[^}]*${call}`, "m"));
      const auth = await (await fetch(`${system.services.auth.adminUrl}/metrics`)).text();
      expect(auth).to.match(new RegExp(`^grpc_server_handled_total\\{[^}]*${call}`, "m"));
      expect(auth).to.not.match(/code="[A-Z]/);
    });
  });
});
