import { Option, Command as Program } from "commander";
import { ADMIN_ENVIRONMENT } from "../config.js";
import { type ParsedArgs, UsageError } from "./args.js";
import type { Command, CommandModule } from "./command.js";

/** What the command line chose: a command and its arguments. */
export interface Selection {
  readonly command: Command;
  readonly args: ParsedArgs;
  readonly json: boolean;
}

const ENVIRONMENT_HELP = [
  "",
  "Environment (npm start prints these for the system it started):",
  ...ADMIN_ENVIRONMENT.map((v) => `  ${v.name.padEnd(22)} ${v.meaning} (default ${v.default})`),
  "",
  "Exit codes: 0 done, 1 the service refused or failed (its reason is printed), 2 usage error.",
].join("\n");

/**
 * The admin tool's command line with commander: `admin <area> <command> [options] [--json]`,
 * `--help` at every level (with the environment it reads), and each command's options declared
 * from its `usage` line (`<id>` a positional word; `--name <name>` an option; `[--scope <s>]...`
 * a repeatable one), so the usage shown is the usage parsed. Required options stay checked by the
 * commands themselves, whose messages say what is missing.
 */
export function adminProgram(
  modules: readonly CommandModule[],
  select: (selection: Selection) => void,
): Program {
  const program = new Program("admin")
    .description(
      "Administration over gRPC, straight to the services: organizations, projects, API keys, service accounts, signing keys, MoveSpec moderation.",
    )
    .usage("<area> <command> [options] [--json]")
    .addHelpText("afterAll", ENVIRONMENT_HELP)
    .showHelpAfterError("(run with --help for usage)");
  for (const module of modules) {
    const area = program.command(module.area).description(module.summary);
    area.usage("<command> [options] [--json]");
    for (const command of module.commands) {
      const leaf = area
        .command(command.name)
        .description(command.summary)
        .usage(`${command.usage} [--json]`.trim())
        .option("--json", "print JSON for scripts instead of text");
      const required = declare(leaf, command.usage);
      leaf.action((...received: unknown[]) => {
        const self = received.at(-1) as Program;
        const options = new Map<string, string[]>();
        for (const [key, value] of Object.entries(self.opts())) {
          if (key === "json" || value === undefined) continue;
          const name = self.options.find((o) => o.attributeName() === key)?.long?.slice(2) ?? key;
          options.set(name, Array.isArray(value) ? value.map(String) : [String(value)]);
        }
        // `--name --json`: commander takes the next word as the value. An option is no value
        // (no name, id or scope starts with "--"): nothing is created under such a name.
        for (const [name, values] of options) {
          const flag = values.find((value) => value.startsWith("--"));
          if (flag) throw new UsageError(`--${name} needs a value, not the option ${flag}`);
        }
        // What the usage line requires is checked before any service is called: a usage error
        // never needs a certificate or a connection.
        for (const name of required.options) {
          if (!options.get(name)?.some((v) => v !== "")) {
            throw new UsageError(`--${name} is required`);
          }
        }
        for (const [index, name] of required.positional.entries()) {
          if ((self.args[index] ?? options.get("id")?.at(-1) ?? "") === "") {
            throw new UsageError(`<${name}> is required`);
          }
        }
        select({
          command,
          args: { positional: [module.area, command.name, ...self.args], options },
          json: self.opts().json === true,
        });
      });
    }
  }
  return program;
}

/** Declares a command's arguments and options from its usage line; answers what it requires. */
function declare(leaf: Program, usage: string): { options: string[]; positional: string[] } {
  const required = { options: [] as string[], positional: [] as string[] };
  let positional = 0;
  const tokens =
    usage.match(/\[[^\]]+\](?:\.\.\.)?|<[^>]+>|--\S+(?:\s+(?:<[^>]+>|[a-z]+(?:\|[a-z]+)+))?/g) ??
    [];
  for (const token of tokens) {
    if (token.startsWith("<")) {
      // Optional for commander: the command may also take the word as --id.
      leaf.argument(`[${token.slice(1, -1)}]`);
      required.positional.push(token.slice(1, -1));
      positional += 1;
      continue;
    }
    const repeatable = token.endsWith("...");
    const inner = token.replace(/\.\.\.$/, "").replace(/^\[|\]$/g, "");
    const [flag, value] = inner.split(/\s+/);
    const placeholder = value ? (value.startsWith("<") ? value : `<${value}>`) : "";
    const option = new Option(
      `${flag} ${placeholder}`.trim(),
      token.startsWith("[") ? "optional" : "required",
    );
    if (repeatable)
      option.argParser((next: string, previous: string[] = []) => [...previous, next]);
    if (!token.startsWith("[")) required.options.push(flag.slice(2));
    leaf.addOption(option);
  }
  // Commands whose id may be given as --id too (`positionalOr`).
  if (positional > 0 && !leaf.options.some((o) => o.long === "--id")) {
    leaf.addOption(new Option("--id <id>").hideHelp());
  }
  return required;
}
