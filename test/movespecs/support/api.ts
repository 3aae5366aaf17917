/**
 * Small helpers for black-box tests of the MoveSpec routes: JSON requests against the gateway,
 * and typed gRPC clients of the authoring and catalogue services (short idle timeouts, so that
 * mocha exits on its own).
 */
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import type { Workload } from "@movement-detection/shared/security";
import { identityOf, type WorkloadTestSystem, workloadClient } from "../../support/workloads.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field with chai
export type JsonBody = Record<string, any>;

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: JsonBody;
}

export interface RequestOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** One HTTP request to the gateway; the body parsed as JSON. */
export async function api(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? {} : (JSON.parse(text) as JsonBody),
  };
}

/** `api` bound to one gateway. */
export function apiOf(baseUrl: string) {
  return (method: string, path: string, options?: RequestOptions) =>
    api(baseUrl, method, path, options);
}

/**
 * The authoring service as `workload` (default: the operator, i.e. the admin tool), for the user
 * whose access token is `user` when given (as the gateway forwards it).
 */
export function authoringClient(
  system: WorkloadTestSystem,
  options: { workload?: Workload; user?: string } = {},
): Client<typeof AuthoringService> {
  return workloadClient(system, AuthoringService, options.workload ?? "operator", options);
}

/**
 * The catalogue service as `workload` (default: the operator). gRPC by default, as the gateway
 * calls the services; `connect` (binary, HTTP/2) costs the client about half the CPU per call,
 * for tests that make thousands of calls.
 */
export function catalogueClient(
  system: WorkloadTestSystem,
  protocol: "grpc" | "connect" = "grpc",
  workload: Workload = "operator",
): Client<typeof CatalogueService> {
  if (protocol === "grpc") return workloadClient(system, CatalogueService, workload);
  const tls = identityOf(system, workload).tls;
  return createClient(
    CatalogueService,
    createConnectTransport({
      baseUrl: system.services.catalogue.grpcUrl,
      idleConnectionTimeoutMs: 1000,
      defaultTimeoutMs: 15_000,
      httpVersion: "2",
      useBinaryFormat: true,
      nodeOptions: tls?.clientOptions("catalogue"),
    }),
  );
}

/** A MoveSpec draft that does not load: a YAML syntax error at line 4, column 8. */
export const BROKEN_YAML = "movespec: 1\nname: Broken\nphases:\n  up: [\n";
