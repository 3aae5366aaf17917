/**
 * An example value for a schema, built from its own `examples`, `const`, `default` and `enum`
 * (so every example in the documents is valid against its schema: Redocly lint checks it).
 */
type Schema = Record<string, unknown>;

const SAMPLE_UUIDS = [
  "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d",
  "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6e",
];

export function exampleOf(schema: Schema, name = ""): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) return exampleOf(schema.anyOf[0] as Schema, name);
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const example: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(properties)) {
        const shown = required.has(key) || Array.isArray(property.examples);
        if (shown) example[key] = exampleOf(property, key);
      }
      return example;
    }
    case "array": {
      const items = schema.items as Schema | undefined;
      const count = Math.max(Number(schema.minItems ?? 0), items ? 1 : 0);
      return Array.from({ length: count }, () => (items ? exampleOf(items, name) : null));
    }
    case "integer":
    case "number":
      return Number(schema.minimum ?? 0);
    case "boolean":
      return true;
    case "string":
      if (schema.format === "uuid") return SAMPLE_UUIDS[name.length % 2];
      if (schema.format === "date-time") return "2026-11-22T10:15:30.123Z";
      if (schema.pattern === "^[0-9a-f]{64}$")
        return "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
      return `${name || "text"}`;
    default:
      return null;
  }
}
