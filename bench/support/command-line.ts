/**
 * A benchmark's command line, the same way for every benchmark with options: `read` parses and
 * checks them and returns what the benchmark runs with; `--help` (when `read` calls `help`)
 * prints the usage on stdout and exits 0; anything `read` throws is a refused option, printed on
 * stderr as `<name>: <reason>` followed by the usage, exit code 2.
 */
export function readCommandLine<T>(name: string, usage: string, read: (help: () => never) => T): T {
  const help = (): never => {
    process.stdout.write(usage);
    process.exit(0);
  };
  try {
    return read(help);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
