import { createAdminClients } from "./cli/clients.js";
import { runAdmin } from "./cli/run.js";
import { loadAdminConfig } from "./config.js";

process.exitCode = await runAdmin(
  process.argv.slice(2),
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  createAdminClients,
  loadAdminConfig(process.env),
);
