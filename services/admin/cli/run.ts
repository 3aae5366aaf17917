import { errorInfo } from "../../shared/errors/service-error.js";
import { COMMAND_MODULES } from "../commands/index.js";
import type { AdminConfig } from "../config.js";
import { argReader, parseArgs, UsageError } from "./args.js";
import type { AdminClients } from "./clients.js";
import type { CommandModule } from "./command.js";
import { createOutput } from "./output.js";

export interface AdminIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * `admin <area> <command> [options] [--json]`. Exit codes: 0 done, 1 the service refused or
 * failed (its reason is printed), 2 usage error.
 */
export async function runAdmin(
  argv: readonly string[],
  io: AdminIo,
  clients: (config: AdminConfig) => AdminClients,
  config: AdminConfig,
  modules: readonly CommandModule[] = COMMAND_MODULES,
): Promise<number> {
  let json = false;
  try {
    const args = parseArgs(argv);
    json = args.options.has("json");
    const [areaName, commandName] = args.positional;
    const area = modules.find((module) => module.area === areaName);
    if (!area || args.options.has("help") || args.options.has("h")) {
      if (areaName && !area && areaName !== "help")
        throw new UsageError(`unknown area "${areaName}"`);
      io.stdout(help(modules, area));
      return 0;
    }
    const command = area.commands.find((candidate) => candidate.name === commandName);
    if (!command) {
      if (commandName) throw new UsageError(`unknown command "${area.area} ${commandName}"`);
      io.stdout(help(modules, area));
      return 0;
    }
    await command.run({
      args: argReader(args, 2),
      clients: clients(config),
      out: createOutput(json, io.stdout),
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n(run with --help for usage)\n`);
      return 2;
    }
    const info = errorInfo(error);
    const report = { error: info.message, reason: info.reason, details: info.metadata };
    io.stderr(
      json
        ? `${JSON.stringify(report)}\n`
        : `error: ${info.message}${info.reason ? ` (${info.reason})` : ""}\n`,
    );
    return 1;
  }
}

function help(modules: readonly CommandModule[], area?: CommandModule): string {
  const shown = area ? [area] : modules;
  const lines = [
    "usage: admin <area> <command> [options] [--json]",
    "",
    ...shown.flatMap((module) => [
      `${module.area}: ${module.summary}`,
      ...module.commands.map(
        (command) =>
          `  ${module.area} ${command.name} ${command.usage}`.trimEnd() +
          `\n      ${command.summary}`,
      ),
      "",
    ]),
    "Environment: AUTH_SERVICE_URL (default http://127.0.0.1:50051), ADMIN_TIMEOUT_MS.",
    "",
  ];
  return lines.join("\n");
}
