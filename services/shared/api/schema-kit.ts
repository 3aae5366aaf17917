/**
 * The few building blocks every schema of the public API is made of. Schemas are TypeBox types:
 * plain JSON Schema objects (2020-12) that TypeScript infers static types from, so one definition
 * gives the validator (Ajv, validation.ts), the generated OpenAPI and AsyncAPI documents and the
 * SDK's types. Why TypeBox + Ajv: bench/schemas/README.md.
 */
import Type, { type TSchema } from "typebox";

export { StringEnum, StringMap } from "@movement-detection/movespec/contract";
export type { TSchema };
export { Type };
export type Static<T extends TSchema> = Type.Static<T>;

/** Lowercase UUID (the only id shape the API hands out or accepts; contract "Identifiers"). */
export const UUID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

/** Schema keywords of ours, checked by validation.ts (OpenAPI allows `x-` extensions). */
export const DISPLAY_NAME_KEYWORD = "x-display-name";
export const FREE_TEXT_KEYWORD = "x-free-text";
export const SEARCH_WORDS_KEYWORD = "x-search-words";

/**
 * A name people read: `minLength` to `maxLength` characters once trimmed and in Unicode normal
 * form KC, and nothing that lets it pass for another name (services/shared/text/display-name.ts).
 */
export function DisplayName(description: string, minLength: number, maxLength: number) {
  return Type.String({
    minLength: 1,
    [DISPLAY_NAME_KEYWORD]: { minLength, maxLength },
    description: `${description}: ${minLength} to ${maxLength} characters once trimmed (Unicode normal form KC), without control, bidirectional control or invisible characters, at most 4 combining marks on a character, and no mix of scripts whose letters pass for each other (Latin with Cyrillic or Greek)`,
  });
}

/** Free text up to `maxLength` characters: no control character but tab and line breaks. */
export function FreeText(maxLength: number, description?: string) {
  return Type.String({
    maxLength,
    [FREE_TEXT_KEYWORD]: true,
    ...(description ? { description } : {}),
  });
}

/**
 * A search query of the public catalogue: up to `maxLength` characters and `maxWords` distinct
 * words, split as the catalogue splits them (services/shared/text/search-words.ts).
 */
export function SearchQuery(description: string, maxLength: number, maxWords: number) {
  return Type.String({
    maxLength,
    [SEARCH_WORDS_KEYWORD]: { maxWords },
    description: `${description}; at most ${maxLength} characters and ${maxWords} distinct words`,
  });
}

export function Uuid(description: string, example = "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d") {
  return Type.String({ format: "uuid", pattern: UUID_PATTERN, description, examples: [example] });
}

/** ISO 8601 UTC with milliseconds, e.g. 2026-11-22T10:15:30.123Z. */
export function Timestamp(description: string) {
  return Type.String({ format: "date-time", description, examples: ["2026-11-22T10:15:30.123Z"] });
}

/**
 * A resource the API answers with: every field the spec lists, nothing more
 * (`additionalProperties: false`, so the contract tests catch an internal field that leaks). The
 * title names it in the OpenAPI document's components.
 */
export function Resource<P extends Type.TProperties>(
  title: string,
  properties: P,
  description: string,
) {
  return Type.Object(properties, { title, description, additionalProperties: false });
}
