import { Command, CommanderError, InvalidArgumentError, Option } from "commander";

/** What the example's command line asks for, checked. */
export interface StreamOptions {
  readonly gateway: string;
  readonly credential: string;
  readonly spec?: string;
  readonly movespecId?: string;
  readonly recording: string;
  readonly mode: "live" | "replay";
  readonly batch: number;
  readonly speed: number;
  readonly encoding: "json" | "binary";
}

const ENVIRONMENT = `
Environment:
  MDS_GATEWAY_URL   the gateway (default http://127.0.0.1:8080); --gateway wins
  MDS_API_KEY       the credential when --api-key is not given: an API key (msk_...)
                    or "key_id:key_secret"
  API_KEY           older name of MDS_API_KEY

Example:
  node --import tsx examples/stream-client/main.ts --api-key msk_... \\
    --spec examples/movespecs/squat.yaml \\
    --recording test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz`;

function positiveNumber(name: string, integer: boolean) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
      throw new InvalidArgumentError(
        `${name} must be a positive ${integer ? "integer" : "number"}`,
      );
    }
    return number;
  };
}

/** The example's command line, parsed with commander: --help, and errors without stack traces. */
export function streamCommand(env: Record<string, string | undefined>): Command {
  return new Command("stream-client")
    .description(
      "Streams a pose recording through the gateway's realtime websocket and prints the detection events as they come. With --spec it publishes the MoveSpec first (needs movespecs:write); with --movespec-id it uses an already released one.",
    )
    .addOption(
      new Option("--gateway <url>", "the gateway's base URL").default(
        env.MDS_GATEWAY_URL ?? "http://127.0.0.1:8080",
      ),
    )
    .option(
      "--api-key <credential>",
      'an API key (msk_...) or "key_id:key_secret" (or MDS_API_KEY)',
    )
    .option("--spec <file.yaml>", "a MoveSpec to publish (draft, version 1, release) and run")
    .option("--movespec-id <id>", "run this already released MoveSpec instead of --spec")
    .requiredOption("--recording <file.jsonl[.gz]>", "pose frames, one JSON object per line")
    .addOption(
      new Option("--mode <mode>", "live: at the recording's pace; replay: as fast as it goes")
        .choices(["live", "replay"])
        .default("live"),
    )
    .option(
      "--batch <n>",
      "frames per message (1 to about 45 in JSON, about 118 in binary)",
      positiveNumber("--batch", true),
      1,
    )
    .addOption(
      new Option("--encoding <encoding>", "frames as JSON text or as binary messages (float32)")
        .choices(["json", "binary"])
        .default("json"),
    )
    .option(
      "--speed <x>",
      "live only: play the recording x times faster",
      positiveNumber("--speed", false),
      1,
    )
    .addHelpText("after", ENVIRONMENT)
    .showHelpAfterError("(run with --help for usage)");
}

/**
 * Parses `argv` (without node and the script). Returns the options, or the exit code when the
 * command line was --help (0) or wrong (2, with a one-line message on stderr and no stack trace).
 */
export function parseStreamArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): StreamOptions | number {
  const command = streamCommand(env)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  try {
    command.parse([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const options = command.opts<{
    gateway: string;
    apiKey?: string;
    spec?: string;
    movespecId?: string;
    recording: string;
    mode: "live" | "replay";
    batch: number;
    speed: number;
    encoding: "json" | "binary";
  }>();
  const credential = options.apiKey ?? env.MDS_API_KEY ?? env.API_KEY;
  const problem = !credential
    ? "a credential is required: --api-key or MDS_API_KEY"
    : !options.spec === !options.movespecId
      ? "give exactly one of --spec and --movespec-id"
      : undefined;
  if (problem || !credential) {
    io.stderr(`error: ${problem}\n(run with --help for usage)\n`);
    return 2;
  }
  return { ...options, credential };
}
