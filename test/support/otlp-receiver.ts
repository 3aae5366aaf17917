/**
 * A minimal OTLP/HTTP trace receiver for tests: the system's processes export their spans to it
 * (OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url) exactly as they would to a collector, in protobuf,
 * and the test reads them back decoded. Only the fields the tests look at are decoded (the wire
 * format lets the rest be skipped).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { BinaryReader, type WireType } from "@bufbuild/protobuf/wire";

export interface ReceivedSpan {
  /** The resource's service.name: the process that made the span. */
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind). */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Resolves once `done(spans)` holds, or rejects after `timeoutMs`. */
  waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        spans.push(...decodeExportRequest(body));
      } catch (error) {
        response.writeHead(400, { "content-type": "text/plain" }).end(String(error));
        return;
      }
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    waitFor(done, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`spans not complete within ${timeoutMs} ms (${spans.length} received)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---- opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest, decoded by hand --------

type Fields = (field: number, wireType: WireType, reader: BinaryReader) => boolean;

/** Reads a message's fields; `read` consumes the ones it knows and returns false for the rest. */
function readMessage(bytes: Uint8Array, read: Fields): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!read(field, wireType, reader)) reader.skip(wireType, field);
  }
}

function decodeExportRequest(body: Uint8Array): ReceivedSpan[] {
  const result: ReceivedSpan[] = [];
  readMessage(body, (field, _wire, reader) => {
    if (field !== 1) return false; // resource_spans
    let service = "";
    const spans: Omit<ReceivedSpan, "service">[] = [];
    readMessage(reader.bytes(), (resourceField, _w, inner) => {
      if (resourceField === 1) {
        readMessage(inner.bytes(), (attributeField, _x, attributes) => {
          if (attributeField !== 1) return false;
          const [key, value] = decodeKeyValue(attributes.bytes());
          if (key === "service.name") service = String(value);
          return true;
        });
        return true;
      }
      if (resourceField === 2) {
        readMessage(inner.bytes(), (scopeField, _x, scope) => {
          if (scopeField !== 2) return false;
          spans.push(decodeSpan(scope.bytes()));
          return true;
        });
        return true;
      }
      return false;
    });
    for (const span of spans) result.push({ ...span, service });
    return true;
  });
  return result;
}

function decodeSpan(bytes: Uint8Array): Omit<ReceivedSpan, "service"> {
  let traceId = "";
  let spanId = "";
  let parentSpanId = "";
  let name = "";
  let kind = 0;
  let statusCode = 0;
  const attributes: Record<string, string | number | boolean> = {};
  readMessage(bytes, (field, _wire, reader) => {
    switch (field) {
      case 1:
        traceId = Buffer.from(reader.bytes()).toString("hex");
        return true;
      case 2:
        spanId = Buffer.from(reader.bytes()).toString("hex");
        return true;
      case 4:
        parentSpanId = Buffer.from(reader.bytes()).toString("hex");
        return true;
      case 5:
        name = reader.string();
        return true;
      case 6:
        kind = reader.int32();
        return true;
      case 9: {
        const [key, value] = decodeKeyValue(reader.bytes());
        attributes[key] = value;
        return true;
      }
      case 15:
        readMessage(reader.bytes(), (statusField, _w, status) => {
          if (statusField !== 3) return false;
          statusCode = status.int32();
          return true;
        });
        return true;
      default:
        return false;
    }
  });
  return { traceId, spanId, parentSpanId, name, kind, attributes, statusCode };
}

function decodeKeyValue(bytes: Uint8Array): [string, string | number | boolean] {
  let key = "";
  let value: string | number | boolean = "";
  readMessage(bytes, (field, _wire, reader) => {
    if (field === 1) {
      key = reader.string();
      return true;
    }
    if (field !== 2) return false;
    readMessage(reader.bytes(), (valueField, _w, any) => {
      if (valueField === 1) value = any.string();
      else if (valueField === 2) value = any.bool();
      else if (valueField === 3) value = Number(any.int64());
      else if (valueField === 4) value = any.double();
      else return false;
      return true;
    });
    return true;
  });
  return [key, value];
}
