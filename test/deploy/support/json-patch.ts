/**
 * RFC 6902 JSON Patch, the operations kustomize's JSON 6902 patches use (add, remove, replace,
 * test), strictly: a path that does not exist is an error, as it is for kustomize.
 */
export interface PatchOperation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

export function applyJsonPatch<T>(document: T, operations: readonly PatchOperation[]): T {
  const result = structuredClone(document);
  for (const operation of operations) applyOne(result, operation);
  return result;
}

function applyOne(document: unknown, operation: PatchOperation): void {
  const tokens = parsePointer(operation.path);
  if (tokens.length === 0)
    throw new Error(`${operation.op} ${operation.path}: the root cannot be patched`);
  const parent = resolve(document, tokens.slice(0, -1), operation.path);
  const key = tokens[tokens.length - 1];
  switch (operation.op) {
    case "add":
      requireValue(operation);
      if (Array.isArray(parent)) {
        const index = key === "-" ? parent.length : arrayIndex(parent, key, operation.path, true);
        parent.splice(index, 0, structuredClone(operation.value));
      } else {
        parent[key] = structuredClone(operation.value);
      }
      return;
    case "replace":
      requireValue(operation);
      requireMember(parent, key, operation.path);
      if (Array.isArray(parent))
        parent[arrayIndex(parent, key, operation.path, false)] = structuredClone(operation.value);
      else parent[key] = structuredClone(operation.value);
      return;
    case "remove":
      requireMember(parent, key, operation.path);
      if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, operation.path, false), 1);
      else delete parent[key];
      return;
    case "test": {
      requireMember(parent, key, operation.path);
      const actual = Array.isArray(parent)
        ? parent[arrayIndex(parent, key, operation.path, false)]
        : parent[key];
      if (JSON.stringify(actual) !== JSON.stringify(operation.value)) {
        throw new Error(
          `test ${operation.path}: ${JSON.stringify(actual)} is not ${JSON.stringify(operation.value)}`,
        );
      }
      return;
    }
    default:
      throw new Error(`unsupported JSON patch operation "${operation.op}" (${operation.path})`);
  }
}

/** RFC 6901: "/a/b~1c" is ["a", "b/c"]; "~0" is "~". */
function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`"${pointer}" is not a JSON pointer`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function resolve(document: unknown, tokens: readonly string[], path: string): Container {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, path, false)];
    else if (isObject(node) && token in node) node = node[token];
    else throw new Error(`${path}: "${token}" does not exist`);
  }
  if (!Array.isArray(node) && !isObject(node))
    throw new Error(`${path}: parent is not an object or array`);
  return node;
}

function arrayIndex(array: unknown[], token: string, path: string, forInsert: boolean): number {
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new Error(`${path}: "${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!forInsert && index === array.length)) {
    throw new Error(`${path}: index ${index} is out of bounds (length ${array.length})`);
  }
  return index;
}

function requireMember(parent: Container, key: string, path: string): void {
  if (Array.isArray(parent)) return;
  if (!(key in parent)) throw new Error(`${path}: "${key}" does not exist`);
}

function requireValue(operation: PatchOperation): void {
  if (!("value" in operation)) throw new Error(`${operation.op} ${operation.path}: no value`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
