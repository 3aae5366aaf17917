/** A parsed command line: positional words and `--name value` / `--name=value` / `--flag` options. */
export interface ParsedArgs {
  readonly positional: readonly string[];
  readonly options: ReadonlyMap<string, readonly string[]>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Options that never take a value. */
const FLAGS = new Set(["json", "help", "h"]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i];
    if (word === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    const match = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/i.exec(word);
    if (!match) {
      positional.push(word);
      continue;
    }
    const [, name, inline] = match;
    let value = inline;
    if (value === undefined && !FLAGS.has(name)) {
      value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      i += 1;
    }
    options.set(name, [...(options.get(name) ?? []), value ?? "true"]);
  }
  return { positional, options };
}

/** Typed access to one command's arguments, with errors that say what is missing. */
export function argReader(args: ParsedArgs, skip: number) {
  const rest = args.positional.slice(skip);
  return {
    flag: (name: string): boolean => args.options.has(name),
    optional: (name: string): string | undefined => args.options.get(name)?.at(-1),
    required(name: string): string {
      const value = args.options.get(name)?.at(-1);
      if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
      return value;
    },
    list: (name: string): string[] =>
      (args.options.get(name) ?? []).flatMap((value) => value.split(",")).filter((v) => v !== ""),
    /** The n-th positional word after the command's name, or a --name option. */
    positionalOr(index: number, name: string): string {
      const value = rest[index] ?? args.options.get(name)?.at(-1);
      if (value === undefined || value === "") throw new UsageError(`<${name}> is required`);
      return value;
    },
  };
}

export type ArgReader = ReturnType<typeof argReader>;
