import { createAdminClients } from "./cli/clients.js";
import { runAdmin } from "./cli/run.js";
import { loadAdminConfig } from "./config.js";

// Piped into `head`, the tool's output may be cut short: that is no error to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", () => process.exit(process.exitCode ?? 0));
}

const code = await runAdmin(
  process.argv.slice(2),
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  createAdminClients,
  // Read when a command first needs a service: --help works whatever the environment says.
  () => loadAdminConfig(process.env),
);
// Exit once the output is written: a connection a service accepted and never answered (a
// frozen process, a port-forward to a dead pod) would keep the process alive after its error.
await Promise.all(
  [process.stdout, process.stderr].map(
    (stream) => new Promise<void>((resolve) => stream.write("", () => resolve())),
  ),
);
process.exit(code);
