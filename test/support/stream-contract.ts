/**
 * Contract tests for free, on the realtime stream: every message a test receives from a
 * session's stream (through the gateway or straight from a detection replica) is checked against
 * the AsyncAPI document (gateway/api-docs/asyncapi.ts), made strict: every object allows only
 * the properties it lists (`additionalProperties: false`), so a field the engine or the service
 * adds without the schema fails here instead of reaching clients undocumented. The `end`
 * message's `terminal_outcome` (the summary as JSON text) is checked as the session.summary event.
 *
 * The check runs inside the `ws` client every test uses (the SDK's stream client on Node 20
 * falls back to it too): stream-contract hooks (contract-hooks.ts) patch its message delivery
 * for the whole run, and a test during which a message broke the contract fails afterwards,
 * naming it.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import WebSocket from "ws";
import { asyncApiDocument } from "../../gateway/api-docs/asyncapi.js";

// biome-ignore lint/suspicious/noExplicitAny: documents are walked
type Json = Record<string, any>;

/** A stream's URL path, public (`/api/detection/sessions/{id}/stream`) or a replica's own. */
const STREAM_PATH = /\/sessions\/[^/]+\/stream$/;

/**
 * A copy of a schema in which every object with listed properties allows no other: the
 * published document leaves them open so that fields can be added under the same version.
 */
export function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = strict(value);
  if (out.type === "object" && out.properties && out.additionalProperties === true)
    out.additionalProperties = false;
  if (out.type === "object" && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

let validators: { byType: Map<string, ValidateFunction>; summary: ValidateFunction } | undefined;

function compiled() {
  if (validators) return validators;
  const document = strict(asyncApiDocument()) as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, "asyncapi.json");
  const byType = new Map<string, ValidateFunction>();
  for (const operation of Object.values(document.operations as Json)) {
    if (operation.action !== "send") continue;
    for (const ref of operation.messages as Json[]) {
      const type = String(ref.$ref).split("/").pop() as string;
      byType.set(type, ajv.compile({ $ref: `asyncapi.json#/components/messages/${type}/payload` }));
    }
  }
  const summary = ajv.compile({ $ref: "asyncapi.json#/components/schemas/Event_session_summary" });
  validators = { byType, summary };
  return validators;
}

const explain = (v: ValidateFunction) =>
  (v.errors ?? [])
    .slice(0, 6)
    .map((e) => `${e.instancePath || "(message)"} ${e.message} ${JSON.stringify(e.params)}`)
    .join("; ");

/** What is wrong with one server message of the stream (undefined: nothing). */
export function streamViolation(text: string): string | undefined {
  let message: Json;
  try {
    message = JSON.parse(text);
  } catch {
    return "a text message that is not JSON";
  }
  const { byType, summary } = compiled();
  const validate = byType.get(String(message?.type));
  if (!validate)
    return `a message of type ${JSON.stringify(message?.type)} the document does not describe`;
  const valid: boolean = validate(message);
  if (!valid) return `${message.type}: ${explain(validate)}`;
  if (message.type === "end" && typeof message.terminal_outcome === "string") {
    let outcome: unknown;
    try {
      outcome = JSON.parse(message.terminal_outcome);
    } catch {
      return "end.terminal_outcome is not JSON";
    }
    if (!summary(outcome)) return `end.terminal_outcome: ${explain(summary)}`;
  }
  return undefined;
}

const violations: string[] = [];

/** The violations seen since the last call, forgotten. */
export function takeStreamViolations(): string[] {
  return violations.splice(0);
}

let original: WebSocket["emit"] | undefined;

/** Checks every text message `ws` clients receive on stream paths from now on. */
export function checkStreamMessages(): void {
  if (original) return;
  original = WebSocket.prototype.emit;
  const inner = original;
  WebSocket.prototype.emit = function (
    this: WebSocket,
    event: string | symbol,
    ...args: unknown[]
  ) {
    // A client's socket has the URL it connected to; a test server's sockets have none.
    if (event === "message" && args[1] === false && this.url) {
      const path = new URL(this.url).pathname;
      if (STREAM_PATH.test(path)) {
        const problem = streamViolation(String(args[0]));
        if (problem)
          violations.push(`${path}: ${problem}\n    message: ${String(args[0]).slice(0, 400)}`);
      }
    }
    return inner.call(this, event, ...args);
  } as WebSocket["emit"];
}

export function stopCheckingStreamMessages(): void {
  if (original) WebSocket.prototype.emit = original;
  original = undefined;
}
