import type { ArgReader } from "./args.js";
import type { AdminClients } from "./clients.js";
import type { Output } from "./output.js";

/** What a command gets: its arguments, the services' clients, and where to print. */
export interface CommandContext {
  readonly args: ArgReader;
  readonly clients: AdminClients;
  readonly out: Output;
}

export interface Command {
  readonly name: string;
  /** e.g. `--org <id> --name <name> [--slug <slug>]` */
  readonly usage: string;
  readonly summary: string;
  run(context: CommandContext): Promise<void>;
}

/** One area of administration (auth, movespecs, ...): registered in commands/index.ts. */
export interface CommandModule {
  readonly area: string;
  readonly summary: string;
  readonly commands: readonly Command[];
}
