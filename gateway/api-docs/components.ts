/**
 * Turns the API's schemas into OpenAPI / AsyncAPI components: every schema with a `title` becomes
 * a named component, and every place it appears a `$ref` to it, so the documents stay readable.
 */
type Json = Record<string, unknown>;

export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  constructor(private readonly refPrefix: string) {}

  /** `schema` as used in a document: a `$ref` if it has a title, with its parts registered. */
  use(schema: unknown): Json {
    const plain = JSON.parse(JSON.stringify(schema)) as Json;
    return this.walk(plain, true);
  }

  private walk(node: Json, top: boolean): Json {
    const title = typeof node.title === "string" ? node.title : undefined;
    const walked: Json = {};
    for (const [key, value] of Object.entries(node)) walked[key] = this.walkValue(value);
    if (!title) return walked;
    const existing = this.schemas[title];
    if (existing && JSON.stringify(existing) !== JSON.stringify(walked)) {
      throw new Error(`two different schemas are titled ${title}`);
    }
    this.schemas[title] = walked;
    return top || title ? { $ref: `${this.refPrefix}${title}` } : walked;
  }

  private walkValue(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.walkValue(item));
    if (value && typeof value === "object") return this.walk(value as Json, false);
    return value;
  }
}
