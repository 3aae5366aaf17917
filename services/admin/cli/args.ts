/** A parsed command line: positional words, and each option's values (repeatable options). */
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

/** Typed access to one command's arguments, with errors that say what is missing. */
export function argReader(args: ParsedArgs, skip: number) {
  const rest = args.positional.slice(skip);
  return {
    flag: (name: string): boolean => args.options.has(name),
    optional: (name: string): string | undefined => args.options.get(name)?.at(-1),
    /**
     * An option whose absence means "all" or a default: given but empty (an unset shell
     * variable) is a usage error rather than read as absent.
     */
    optionalNonEmpty(name: string): string | undefined {
      const value = args.options.get(name)?.at(-1);
      if (value === "")
        throw new UsageError(`--${name} needs a value (leave the option out instead)`);
      return value;
    },
    required(name: string): string {
      const value = args.options.get(name)?.at(-1);
      if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
      return value;
    },
    /**
     * Every value of a repeatable option (comma-separated ones too). Given but empty (`--scope ""`,
     * an unset shell variable) is a usage error: read as absent, it would mean "all".
     */
    list(name: string): string[] {
      const values = (args.options.get(name) ?? [])
        .flatMap((value) => value.split(","))
        .map((value) => value.trim());
      if (values.some((value) => value === "")) {
        throw new UsageError(`--${name} needs a value (leave the option out instead)`);
      }
      return values;
    },
    /** The n-th positional word after the command's name, or a --name option (or --id). */
    positionalOr(index: number, name: string): string {
      const value = rest[index] ?? args.options.get(name)?.at(-1) ?? args.options.get("id")?.at(-1);
      if (value === undefined || value === "") throw new UsageError(`<${name}> is required`);
      return value;
    },
  };
}

export type ArgReader = ReturnType<typeof argReader>;
