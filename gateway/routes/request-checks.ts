import type { JsonObject } from "@bufbuild/protobuf";
import {
  type Checker,
  compileChecker,
  type InvalidField,
  type Static,
  type TSchema,
} from "@movement-detection/shared/api";
import { Reason } from "@movement-detection/shared/errors";
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  isValidIdempotencyKey,
} from "@movement-detection/shared/idempotency/key";
import { ApiError } from "../errors/api-error.js";
import type { GatewayContext } from "../state.js";

/**
 * Requests checked against the API's schemas (services/shared/api): a body or a query that does
 * not fit is 400 `invalid_argument` listing every invalid field in `details.errors`; the first
 * one also gives the envelope its reason, message and `details.field` (as before the schemas).
 */
export function invalidFields(errors: readonly InvalidField[]): ApiError {
  const [first] = errors;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more: see details.errors)` : "";
  const { reason, message, ...extras } = first;
  return new ApiError("invalid_argument", reason, message + more, {
    ...(extras as unknown as JsonObject),
    errors: errors as unknown as JsonObject[],
  });
}

/** The JSON body, checked; a member that is `null` counts as absent, no body as `{}`. */
export function checkBody<T>(ctx: GatewayContext, checker: Checker<T>): T {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ctx.state.body ?? {})) {
    if (value !== null) setOwn(body, name, value);
  }
  const result = checker(body);
  if (!result.ok) throw invalidFields(result.errors);
  return result.value;
}

/**
 * `target[name] = value` with `name` from the client would, for `__proto__`, set the object's
 * prototype instead: every member could then come through it. A member by that name is an
 * unknown member like any other.
 */
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export type QueryChecker<T> = (params: URLSearchParams) => T;

/**
 * A checker of query parameters for an object schema: integer parameters are read as integers
 * (`1.5`, `1e3`, `abc` and the empty string are not), a parameter given twice is FIELD_INVALID.
 */
export function queryChecker<S extends TSchema>(schema: S): QueryChecker<Static<S>> {
  const properties =
    (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const integers = new Set(
    Object.entries(properties)
      .filter(([, property]) => property.type === "integer")
      .map(([name]) => name),
  );
  const check = compileChecker(schema);
  return (params) => {
    const query: Record<string, unknown> = {};
    const repeated: InvalidField[] = [];
    for (const name of new Set(params.keys())) {
      const values = params.getAll(name);
      if (values.length > 1) {
        repeated.push({
          field: name,
          reason: "FIELD_INVALID",
          message: `${name} may be given once`,
        });
        continue;
      }
      const [value] = values;
      // Values are strings or numbers: a `__proto__` parameter is dropped, never a prototype.
      query[name] = integers.has(name) && /^-?\d{1,30}$/.test(value) ? Number(value) : value;
    }
    const result = check(query);
    const errors = [...repeated, ...(result.ok ? [] : result.errors)];
    if (errors.length > 0) throw invalidFields(errors);
    return (result as { value: Static<S> }).value;
  };
}

/**
 * The request's Idempotency-Key: undefined without the header; 400 FIELD_INVALID when it is
 * there but not 1..255 printable ASCII characters. An empty header is refused here, where its
 * presence is known: over gRPC "" means "no key", and the request would silently lose its safety.
 */
export function idempotencyKeyOf(ctx: GatewayContext): string | undefined {
  const key = ctx.req.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (typeof key === "string" && isValidIdempotencyKey(key)) return key;
  throw new ApiError(
    "invalid_argument",
    Reason.fieldInvalid,
    `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
    { field: "Idempotency-Key", max_length: IDEMPOTENCY_KEY_MAX_LENGTH },
  );
}
