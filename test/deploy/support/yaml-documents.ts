import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";

/**
 * The documents of a YAML file as kubectl reads them: YAML 1.1 (`0440` is octal, `yes` is true).
 * A file that YAML 1.2 reads differently is refused, since a human (or another tool) reading it
 * would see something else than the cluster gets.
 */
export async function readYamlDocuments(file: string): Promise<unknown[]> {
  const text = await readFile(file, "utf8");
  const asKubectl = parse(text, "1.1", file);
  const asYaml12 = parse(text, "1.2", file);
  if (JSON.stringify(asKubectl) !== JSON.stringify(asYaml12)) {
    throw new Error(
      `${file}: YAML 1.1 (kubectl) and YAML 1.2 read it differently; quote or rewrite the ambiguous values`,
    );
  }
  return asKubectl;
}

function parse(text: string, version: "1.1" | "1.2", file: string): unknown[] {
  const documents = parseAllDocuments(text, { version, uniqueKeys: true });
  const values: unknown[] = [];
  for (const document of Array.isArray(documents) ? documents : [documents]) {
    if (document.errors.length > 0) {
      throw new Error(`${file}: ${document.errors.map((error) => error.message).join("; ")}`);
    }
    const value = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}
