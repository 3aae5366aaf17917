import { readFileSync } from "node:fs";

/**
 * Typed readers for environment variables. They take the environment as an argument so that only
 * each process's `config.ts` touches `process.env`, and every error names the variable at fault.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function envString(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

export function envOptionalString(env: Env, name: string): string | undefined {
  return raw(env, name);
}

export function envInt(
  env: Env,
  name: string,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `must be an integer, got "${value}"`);
  const parsed = Number(value);
  if (range.min !== undefined && parsed < range.min) {
    throw new ConfigError(name, `must be >= ${range.min}, got ${parsed}`);
  }
  if (range.max !== undefined && parsed > range.max) {
    throw new ConfigError(name, `must be <= ${range.max}, got ${parsed}`);
  }
  return parsed;
}

export function envPort(env: Env, name: string, fallback: number): number {
  return envInt(env, name, fallback, { min: 0, max: 65535 });
}

export function envBool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new ConfigError(name, `must be a boolean (true/false), got "${value}"`);
}

export function envEnum<const T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${value}"`);
  }
  return value as T;
}

export function envList(env: Env, name: string, fallback: readonly string[]): string[] {
  const value = raw(env, name);
  if (value === undefined) return [...fallback];
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * A secret from `NAME`, or from the file named by `NAME_FILE` (a mounted Kubernetes Secret, or
 * the 0600 file `npm start` writes): the file form keeps the value out of the environment. Both
 * set is an error; neither is undefined.
 */
export function envSecret(env: Env, name: string): string | undefined {
  const inline = raw(env, name);
  const file = raw(env, `${name}_FILE`);
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError(name, `and ${name}_FILE are both set: use one`);
  }
  if (file === undefined) return inline;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE`,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}): ${file}`,
    );
  }
  const value = text.trim();
  if (value === "") throw new ConfigError(`${name}_FILE`, `is empty: ${file}`);
  return value;
}
