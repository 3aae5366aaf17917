/**
 * JSON Schema building blocks shared by the contracts the language publishes (the detection
 * events, movespec/engine/event-schema.ts) and the public API's schemas (services/shared/api),
 * as TypeBox types: plain JSON Schema objects that TypeScript infers static types from.
 */
import Type, { type TSchema } from "typebox";

/** A string from a closed list, as `{"type":"string","enum":[...]}`. */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description?: string; default?: Values[number]; title?: string } = {},
) {
  return Type.Unsafe<Values[number]>({ type: "string", enum: [...values], ...options });
}

/** An object whose keys are free and whose values all have one schema (a JSON "map"). */
export function StringMap<T extends TSchema>(values: T, description?: string) {
  return Type.Unsafe<Record<string, Type.Static<T>>>({
    type: "object",
    additionalProperties: values,
    ...(description ? { description } : {}),
  });
}
