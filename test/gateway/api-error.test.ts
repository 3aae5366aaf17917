import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@movement-detection/proto/common/v1";
import type { ErrorReason } from "@movement-detection/shared/errors";
import {
  boundedMetadata,
  ERROR_METADATA_MAX_BYTES,
  errorInfo,
  serviceError,
} from "@movement-detection/shared/errors";
import {
  acceptRequestId,
  looksLikeCredential,
  SECRET_RUN_LENGTH,
} from "@movement-detection/shared/logging";
import { expect } from "chai";
import { ApiError } from "../../gateway/errors/api-error.js";
import { API_ERROR_CODES } from "../../gateway/errors/error-codes.js";
import { rawErrorResponse } from "../../gateway/errors/raw-response.js";

describe("errors from services to the public envelope", () => {
  it("carries reason and metadata through a ConnectError", () => {
    const info = errorInfo(
      serviceError(Code.NotFound, "MOVESPEC_NOT_FOUND", "no such movespec", { id: "x" }),
    );
    expect(info).to.deep.equal({
      code: Code.NotFound,
      reason: "MOVESPEC_NOT_FOUND",
      message: "no such movespec",
      metadata: { id: "x" },
    });
  });

  describe("metadata too large to travel in trailers (ERROR_METADATA_MAX_BYTES)", () => {
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const issue = (i: number) => ({ code: "UNKNOWN_KEY", message: `key ${i} ${"z".repeat(80)}` });

    it("leaves metadata of exactly the limit whole", () => {
      const head = { field: "x", hint: "" };
      const atLimit = { ...head, hint: "h".repeat(ERROR_METADATA_MAX_BYTES - bytes(head)) };
      expect(bytes(atLimit)).to.equal(ERROR_METADATA_MAX_BYTES);
      expect(boundedMetadata(atLimit)).to.equal(atLimit);
    });

    it("cuts a list at its end one byte past it, and counts what it left out", () => {
      const head = { field: "x", errors: [] as unknown[] };
      const errors: ReturnType<typeof issue>[] = [];
      while (bytes({ ...head, errors }) <= ERROR_METADATA_MAX_BYTES)
        errors.push(issue(errors.length));
      const bounded = boundedMetadata({ field: "x", errors });
      expect(bytes(bounded)).to.be.at.most(ERROR_METADATA_MAX_BYTES);
      const kept = bounded.errors as unknown[];
      expect(kept).to.deep.equal(errors.slice(0, kept.length));
      expect(kept.length + (bounded.errors_omitted as number)).to.equal(errors.length);
      expect(bounded.field).to.equal("x");
    });

    it("keeps as many of 2,000 issues as fit, through a ConnectError and back", () => {
      const errors = Array.from({ length: 2000 }, (_, i) => issue(i));
      const { metadata } = errorInfo(
        serviceError(Code.FailedPrecondition, "DRAFT_INVALID", "the draft does not load", {
          errors,
        }),
      );
      const kept = metadata.errors as unknown[];
      expect(kept.length).to.be.within(100, 200);
      expect(kept).to.deep.equal(errors.slice(0, kept.length));
      expect(metadata.errors_omitted).to.equal(2000 - kept.length);
    });

    it("drops a member too large for any cut, and names it", () => {
      const bounded = boundedMetadata({ field: "scopes", hint: "h".repeat(100_000) });
      expect(bounded).to.deep.equal({ field: "scopes", omitted_fields: ["hint"] });
    });
  });

  // [gRPC code, reason, public code, HTTP status, retryable]: the contract's table, written out.
  const cases: [Code, ErrorReason, string, number, boolean][] = [
    [Code.InvalidArgument, "FIELD_INVALID", "invalid_argument", 400, false],
    [Code.Unauthenticated, "CREDENTIAL_INVALID", "unauthenticated", 401, false],
    [Code.PermissionDenied, "SCOPE_MISSING", "permission_denied", 403, false],
    [Code.NotFound, "SESSION_NOT_FOUND", "not_found", 404, false],
    [Code.AlreadyExists, "SLUG_TAKEN", "already_exists", 409, false],
    [Code.FailedPrecondition, "MOVESPEC_ARCHIVED", "failed_precondition", 409, false],
    [Code.FailedPrecondition, "ETAG_MISMATCH", "precondition_failed", 412, false],
    [Code.Aborted, "CONCURRENT_MODIFICATION", "aborted", 409, true],
    [Code.Aborted, "WRITE_CONFLICT", "aborted", 409, true],
    [Code.InvalidArgument, "YAML_TOO_LARGE", "payload_too_large", 413, false],
    [Code.ResourceExhausted, "SESSION_QUOTA_EXCEEDED", "resource_exhausted", 429, true],
    [Code.Unavailable, "DEPENDENCY_UNAVAILABLE", "unavailable", 503, true],
    [Code.DeadlineExceeded, "DEADLINE_EXCEEDED", "deadline_exceeded", 504, true],
  ];
  for (const [grpc, reason, code, status, retryable] of cases) {
    it(`${Code[grpc]} ${reason} -> ${status} ${code}${retryable ? " (retryable)" : ""}`, () => {
      const error = ApiError.fromServiceError(serviceError(grpc, reason, "m"));
      expect(error).to.include({ code, reason, status, retryable, message: "m" });
    });
  }

  it("lets the reason decide the public code whatever gRPC code carried it", () => {
    const error = ApiError.fromServiceError(serviceError(Code.Internal, "PROJECT_NOT_FOUND", "m"));
    expect(error).to.include({ code: "not_found", status: 404 });
  });

  it("falls back to the gRPC code for a reason outside the vocabulary", () => {
    const foreign = serviceError(Code.NotFound, "PROJECT_NOT_FOUND", "m");
    const [detail] = foreign.findDetails(ErrorDetailSchema);
    (detail as { reason: string }).reason = "SOMETHING_NEW";
    const rebuilt = new ConnectError("m", Code.NotFound, undefined, [
      { desc: ErrorDetailSchema, value: detail },
    ]);
    expect(ApiError.fromServiceError(rebuilt)).to.include({
      code: "not_found",
      reason: "NOT_FOUND",
      status: 404,
    });
  });

  it("turns anything that is neither ApiError nor ConnectError into a bare 500", () => {
    const error = ApiError.from(new TypeError("Cannot read properties of undefined"));
    expect(error).to.include({ code: "internal", reason: "INTERNAL", status: 500 });
    expect(error.message).to.equal("internal error");
    expect(error.cause).to.be.instanceOf(TypeError);
  });

  it("sets Retry-After from retry_after_seconds", () => {
    const error = ApiError.fromServiceError(
      serviceError(Code.ResourceExhausted, "RATE_LIMITED", "slow down", {
        retry_after_seconds: 2.2,
      }),
    );
    expect(error.headers).to.deep.equal({ "retry-after": "3" });
    expect(error.retryable).to.equal(true);
  });

  it("never passes an internal error's message on", () => {
    for (const code of [Code.Internal, Code.Unknown, Code.DataLoss, Code.Unimplemented]) {
      const error = ApiError.fromServiceError(new ConnectError("db password is hunter2", code));
      expect(error).to.include({ code: "internal", status: 500, message: "internal error" });
    }
  });

  it("treats an unreachable service as 503 DEPENDENCY_UNAVAILABLE", () => {
    const error = ApiError.fromServiceError(
      new ConnectError("connect ECONNREFUSED", Code.Unavailable),
    );
    expect(error).to.include({
      code: "unavailable",
      reason: "DEPENDENCY_UNAVAILABLE",
      status: 503,
    });
    expect(error.message).not.to.contain("ECONNREFUSED");
  });

  it("every canonical code maps to the contract's status", () => {
    expect(
      Object.fromEntries(Object.entries(API_ERROR_CODES).map(([k, v]) => [k, v.status])),
    ).to.deep.equal({
      invalid_argument: 400,
      unauthenticated: 401,
      permission_denied: 403,
      not_found: 404,
      method_not_allowed: 405,
      already_exists: 409,
      failed_precondition: 409,
      precondition_failed: 412,
      aborted: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      resource_exhausted: 429,
      internal: 500,
      unavailable: 503,
      deadline_exceeded: 504,
    });
  });
});

describe("acceptRequestId", () => {
  it("keeps sane ids up to 128 characters and replaces anything else", () => {
    expect(acceptRequestId("abc-123_X.y:z")).to.equal("abc-123_X.y:z");
    expect(acceptRequestId("a".repeat(128))).to.equal("a".repeat(128));
    for (const bad of [
      "a".repeat(129),
      "has space",
      "new\nline",
      "<script>",
      "",
      null,
      undefined,
    ]) {
      expect(acceptRequestId(bad)).to.match(/^[0-9a-f-]{36}$/);
    }
  });

  it("keeps the ids the gateway makes (lowercase UUIDs), which the full checks keep too", () => {
    for (let i = 0; i < 200; i += 1) {
      const id = randomUUID();
      expect(acceptRequestId(id)).to.equal(id);
      expect(looksLikeCredential(id), id).to.equal(false);
    }
    const upper = randomUUID().toUpperCase();
    expect(acceptRequestId(upper), "not the shortcut's shape: checked in full").to.equal(upper);
  });

  it("replaces an id that is or holds a credential: its prefix in any case, or a secret's body", () => {
    const body = "Zx9-Qw_3".repeat(5) + "AbC"; // 43 characters, as a secret's body
    for (const credential of [
      `msk_${body}`,
      `MSK_${body}`,
      `mSs_${body}`,
      "req:msk_x",
      body,
      `trace.${body}.1`,
      "Ab".repeat(SECRET_RUN_LENGTH / 2),
      `x-${"Ab".repeat(SECRET_RUN_LENGTH / 2)}`,
    ]) {
      const id = acceptRequestId(credential);
      expect(id, credential).to.match(/^[0-9a-f-]{36}$/);
      expect(looksLikeCredential(credential), credential).to.equal(true);
    }
  });

  it("keeps ordinary ids: UUIDs, hex trace ids, ULIDs, nanoids, and runs of one case or under 32", () => {
    for (const ordinary of [
      "0195a2b4-7c1d-7000-8000-000000000000",
      "4bf92f3577b34da6a3ce929d0e0e4736",
      "4bf92f3577b34da6a3ce929d0e0e4736".repeat(2),
      "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      "V1StGXR8_Z5jdHi6B-myT",
      "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
      `${"Ab".repeat(SECRET_RUN_LENGTH / 2).slice(1)}.${"Ab".repeat(15)}`,
      "a".repeat(128),
      "A".repeat(128),
      "ms-k_1",
      "msk",
    ]) {
      expect(acceptRequestId(ordinary), ordinary).to.equal(ordinary);
    }
  });
});

describe("the error envelope, through Koa or raw on a socket", () => {
  it("puts the reason, the request id and the trace id last in details, over any of those names", () => {
    const error = new ApiError("not_found", "MOVESPEC_NOT_FOUND", "no such movespec", {
      id: "x",
      reason: "SPOOFED",
      request_id: "spoofed",
    });
    expect(error.envelope("req-1", "0af7651916cd43dd8448eb211c80319c")).to.deep.equal({
      error: {
        code: "not_found",
        message: "no such movespec",
        retryable: false,
        details: {
          id: "x",
          reason: "MOVESPEC_NOT_FOUND",
          request_id: "req-1",
          trace_id: "0af7651916cd43dd8448eb211c80319c",
        },
      },
    });
    expect(error.envelope("req-1").error.details).to.not.have.property("trace_id");
  });

  it("answers a raw refusal with the same envelope, its status and headers", () => {
    const response = rawErrorResponse({
      code: "unavailable",
      reason: "DEPENDENCY_UNAVAILABLE",
      message: "the realtime service is unavailable",
      requestId: "req-2",
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      headers: { "Sec-WebSocket-Version": "13" },
    });
    const [head, body] = response.split("\r\n\r\n");
    expect(head.split("\r\n")).to.deep.equal([
      "HTTP/1.1 503 Service Unavailable",
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "X-Request-Id: req-2",
      "Sec-WebSocket-Version: 13",
      "Cache-Control: no-store",
      "Connection: close",
    ]);
    expect(JSON.parse(body)).to.deep.equal({
      error: {
        code: "unavailable",
        message: "the realtime service is unavailable",
        retryable: true,
        details: {
          reason: "DEPENDENCY_UNAVAILABLE",
          request_id: "req-2",
          trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
        },
      },
    });
    // HTTP's own status where the code's does not cover it (431), the code's envelope unchanged.
    const tooLarge = rawErrorResponse({
      status: 431,
      code: "payload_too_large",
      reason: "HEADERS_TOO_LARGE",
      message: "the request's headers are too large",
      requestId: "req-3",
    });
    expect(tooLarge.split("\r\n")[0]).to.equal("HTTP/1.1 431 Request Header Fields Too Large");
    expect(JSON.parse(tooLarge.split("\r\n\r\n")[1]).error).to.include({
      code: "payload_too_large",
      retryable: false,
    });
  });
});
