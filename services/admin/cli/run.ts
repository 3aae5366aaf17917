import { codeToString } from "@connectrpc/connect/protocol-connect";
import { ConfigError } from "@movement-detection/shared/config";
import { errorInfo } from "@movement-detection/shared/errors";
import { CommanderError } from "commander";
import { COMMAND_MODULES } from "../commands/index.js";
import type { AdminConfig } from "../config.js";
import { argReader, UsageError } from "./args.js";
import type { AdminClients } from "./clients.js";
import type { CommandModule } from "./command.js";
import { createOutput } from "./output.js";
import { adminProgram, type Selection } from "./program.js";

export interface AdminIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * `admin <area> <command> [options] [--json]`. Exit codes: 0 done (or help), 1 the service
 * refused or failed (its reason is printed), 2 usage error. Never a stack trace for a usage error.
 */
export async function runAdmin(
  argv: readonly string[],
  io: AdminIo,
  clients: (config: AdminConfig) => AdminClients,
  /** The configuration, or how to read it (when a command first needs a service). */
  config: AdminConfig | (() => AdminConfig),
  modules: readonly CommandModule[] = COMMAND_MODULES,
): Promise<number> {
  let selection: Selection | undefined;
  const program = adminProgram(modules, (chosen) => {
    selection = chosen;
  });
  for (const command of [
    program,
    ...program.commands,
    ...program.commands.flatMap((c) => c.commands),
  ]) {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  }
  // `admin` or `admin <area>` alone: that level's help, on stdout (commander would say it on stderr).
  const area = program.commands.find((command) => command.name() === argv[0]);
  if (argv.length === 0 || (argv.length === 1 && area)) {
    (area ?? program).outputHelp();
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message, argv.includes("--json"));
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
  if (!selection) {
    program.outputHelp();
    return 0;
  }
  const { command, args, json } = selection;
  let made: AdminClients | undefined;
  try {
    await command.run({
      args: argReader(args, 2),
      // Made on first use: a command refused on its arguments needs no certificate.
      get clients() {
        made ??= clients(typeof config === "function" ? config() : config);
        return made;
      },
      out: createOutput(json, io.stdout),
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message, json);
    // A bad environment variable: one line naming it, like a bad argument.
    if (error instanceof ConfigError) return usageError(io, error.message, json);
    const info = errorInfo(error);
    // The code says whether trying again may help (unavailable, deadline_exceeded).
    const report = {
      error: info.message,
      code: codeToString(info.code),
      reason: info.reason,
      details: info.metadata,
    };
    io.stderr(
      json
        ? `${JSON.stringify(report)}\n`
        : `error: ${info.message}${info.reason ? ` (${info.reason})` : ""}\n`,
    );
    return 1;
  }
}

/** Exit 2 with the message: JSON on stderr with --json, as every error. */
function usageError(io: AdminIo, message: string, json: boolean): number {
  io.stderr(
    json
      ? `${JSON.stringify({ error: message, code: "usage" })}\n`
      : `error: ${message}\n(run with --help for usage)\n`,
  );
  return 2;
}
