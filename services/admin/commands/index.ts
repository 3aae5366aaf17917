import type { CommandModule } from "../cli/command.js";
import { authCommands } from "./auth.js";
import { movespecCommands } from "./movespecs.js";

/** Every area of the admin tool: adding one is one line here. */
export const COMMAND_MODULES: readonly CommandModule[] = [authCommands, movespecCommands];
