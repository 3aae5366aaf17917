/**
 * Validates values against the API's schemas with Ajv (compiled once, every error collected) and
 * turns Ajv's errors into the envelope's field errors: one per invalid field, with the reason the
 * contract gives it (FIELD_REQUIRED, FIELD_INVALID, LIMIT_OUT_OF_RANGE for numbers out of range)
 * and a message a person can act on.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { displayNameIssue, freeTextError, type NameLength } from "../text/display-name.js";
import { SEARCH_WORD_LENGTH, searchWords } from "../text/search-words.js";
import type { FieldErrorJson } from "./error-envelope.js";
import {
  DISPLAY_NAME_KEYWORD,
  FREE_TEXT_KEYWORD,
  SEARCH_WORDS_KEYWORD,
  type Static,
  type TSchema,
  UUID_PATTERN,
} from "./schema-kit.js";

/** A field error, with the structured extras the envelope has always carried for some of them. */
export interface InvalidField extends FieldErrorJson {
  readonly reason: "FIELD_REQUIRED" | "FIELD_INVALID" | "LIMIT_OUT_OF_RANGE";
  readonly allowed?: readonly unknown[];
  readonly min?: number;
  readonly max?: number;
  /** What is wrong with a display name's characters (bidi_control, no_base_character...). */
  readonly problem?: string;
  /** The most words a search query may hold (as the catalogue's own refusal says). */
  readonly max_words?: number;
}

export type CheckResult<T> = { ok: true; value: T } | { ok: false; errors: InvalidField[] };
export type Checker<T> = (value: unknown) => CheckResult<T>;

/**
 * One Ajv for the whole process. `strict: false` because TypeBox schemas carry annotations
 * (title, examples) Ajv's strict mode would question; formats are checked (uuid, date-time);
 * `verbose` puts the failing schema in each error, for the bounds of LIMIT_OUT_OF_RANGE.
 */
export const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  allowUnionTypes: true,
  verbose: true,
});
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/**
 * Text the services check beyond JSON Schema, checked here as well so that a request lists
 * every invalid field at once: `x-display-name` (trimmed, normal form KC, between its bounds,
 * nothing that lets it pass for another name: display-name.ts) and `x-free-text` (no control
 * character but tab and line breaks). The services keep their own checks (internal callers reach
 * them directly).
 */
ajv.addKeyword({
  keyword: DISPLAY_NAME_KEYWORD,
  type: "string",
  schemaType: "object",
  errors: true,
  validate: textKeyword((value, length: NameLength) => displayNameIssue(value, length)),
});
ajv.addKeyword({
  keyword: FREE_TEXT_KEYWORD,
  type: "string",
  schemaType: "boolean",
  errors: true,
  validate: textKeyword((value, on: boolean) => {
    const message = on ? freeTextError(value) : undefined;
    return message === undefined ? undefined : { message };
  }),
});

/**
 * `x-search-words`: the catalogue refuses a query of too many words, and counting them needs its
 * word splitting, not a JSON Schema keyword; checked here too, a listing with other invalid
 * parameters lists them all in one answer.
 */
ajv.addKeyword({
  keyword: SEARCH_WORDS_KEYWORD,
  type: "string",
  schemaType: "object",
  errors: true,
  validate: textKeyword((value, { maxWords }: { maxWords: number }) =>
    searchWords([value], { maxLength: SEARCH_WORD_LENGTH, maxWords: maxWords + 1 }).length >
    maxWords
      ? { message: `may hold at most ${maxWords} words`, max_words: maxWords }
      : undefined,
  ),
});

/**
 * An Ajv validate function from a check that answers what is wrong (a message, and the name of
 * the problem for `details.problem` or the bound for `details.max_words`) or undefined.
 */
function textKeyword<S>(
  check: (
    value: string,
    schema: S,
  ) => { message: string; problem?: string; max_words?: number } | undefined,
) {
  const validate = (schema: S, value: string): boolean => {
    const issue = check(value, schema);
    validate.errors = issue
      ? [
          {
            keyword: "x-text",
            message: issue.message,
            params: { problem: issue.problem, max_words: issue.max_words },
          },
        ]
      : undefined;
    return issue === undefined;
  };
  validate.errors = undefined as Partial<ErrorObject>[] | undefined;
  return validate;
}

/** Compiles `schema` once; the checker answers the value typed, or every field error. */
export function compileChecker<S extends TSchema>(schema: S): Checker<Static<S>> {
  const validate: ValidateFunction = ajv.compile(schema as object);
  return (value) =>
    validate(value)
      ? { ok: true, value: value as Static<S> }
      : { ok: false, errors: fieldErrors(validate.errors ?? []) };
}

/** Ajv's errors as field errors, one per field (the first problem Ajv found with it). */
export function fieldErrors(errors: readonly ErrorObject[]): InvalidField[] {
  const byField = new Map<string, InvalidField>();
  for (const error of errors) {
    // anyOf/oneOf/if repeat what their branches said; the branch errors are the useful ones.
    if (error.keyword === "anyOf" || error.keyword === "oneOf" || error.keyword === "if") continue;
    const field = fieldOf(error);
    if (!byField.has(field)) byField.set(field, describe(field, error));
  }
  if (byField.size === 0 && errors.length > 0) {
    const field = fieldOf(errors[0]);
    byField.set(field, describe(field, errors[0]));
  }
  return [...byField.values()];
}

/** `/frames/3/seq` -> `frames[3].seq`; a missing member names itself. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split("/").slice(1).map(unescapePointer);
  if (error.keyword === "required") parts.push(String(error.params.missingProperty));
  let field = "";
  for (const part of parts) field += /^\d+$/.test(part) ? `[${part}]` : field ? `.${part}` : part;
  return field || "(body)";
}

function unescapePointer(part: string): string {
  return part.replaceAll("~1", "/").replaceAll("~0", "~");
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

function describe(field: string, error: ErrorObject): InvalidField {
  const p = error.params as Record<string, unknown>;
  const invalid = (message: string, extra: Partial<InvalidField> = {}): InvalidField => ({
    field,
    reason: "FIELD_INVALID",
    message: `${field} ${message}`,
    ...extra,
  });
  switch (error.keyword) {
    case "required":
      return { field, reason: "FIELD_REQUIRED", message: `${field} is required` };
    case "type": {
      const types = String(p.type).split(",");
      return invalid(`must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(" or ")}`);
    }
    case "enum": {
      const allowed = p.allowedValues as unknown[];
      return invalid(`must be one of ${allowed.join(", ")}`, { allowed });
    }
    case "const":
      return invalid(`must be ${JSON.stringify(p.allowedValue)}`, { allowed: [p.allowedValue] });
    case "minLength":
      return p.limit === 1
        ? invalid("must not be empty")
        : invalid(`must be at least ${p.limit} characters`);
    case "maxLength":
      return invalid(`must be at most ${p.limit} characters`);
    case "minItems":
      return invalid(`must have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`);
    case "maxItems":
      return invalid(`must have at most ${p.limit} items`);
    case "pattern":
      return invalid(
        p.pattern === UUID_PATTERN ? "must be an id (a lowercase UUID)" : "is not well-formed",
      );
    case "format":
      return invalid(`must be a valid ${p.format}`);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return rangeError(field, error);
    default: {
      const { problem, max_words } = p;
      return invalid(error.message ?? "is not valid", {
        ...(typeof problem === "string" ? { problem } : {}),
        ...(typeof max_words === "number" ? { max_words } : {}),
      });
    }
  }
}

/** Numbers out of range: LIMIT_OUT_OF_RANGE, with the bounds (`min`, `max` when inclusive). */
function rangeError(field: string, error: ErrorObject): InvalidField {
  const schema = (error.parentSchema ?? {}) as {
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
    exclusiveMaximum?: number;
  };
  const { minimum: min, maximum: max, exclusiveMinimum: above, exclusiveMaximum: below } = schema;
  const bounds =
    min !== undefined && max !== undefined
      ? `between ${min} and ${max}`
      : [
          min !== undefined ? `at least ${min}` : undefined,
          above !== undefined ? `above ${above}` : undefined,
          max !== undefined ? `at most ${max}` : undefined,
          below !== undefined ? `below ${below}` : undefined,
        ]
          .filter((part) => part !== undefined)
          .join(" and ");
  return {
    field,
    reason: "LIMIT_OUT_OF_RANGE",
    message: `${field} must be ${bounds}`,
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
  };
}
