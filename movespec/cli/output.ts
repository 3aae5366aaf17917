/**
 * Where the CLI's lines go: stdout for results, stderr for diagnostics, and a progress bar on
 * stderr (cli-progress) while a long recording is read. When stdout and stderr are the same
 * terminal, result lines are printed above the bar through the bar's own log, so that the bar
 * is redrawn below them instead of being written through (`[###---] 8%t=110.10s rep 48`).
 */
import { MultiBar, SingleBar } from "cli-progress";

/** The output streams of a run; tests pass their own. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export interface Output {
  /** A result line (no trailing newline). */
  line(text: string): void;
  /** A diagnostic line on stderr (no trailing newline). */
  note(text: string): void;
  /** Progress through the input, in bytes read. */
  progress(done: number): void;
  /** Completes the bar (if any) and prints whatever it held back. */
  finish(): void;
}

export function createOutput(io: Io, bar: { total: number; label: string } | undefined): Output {
  if (!bar) {
    return {
      line: (text) => io.stdout.write(`${text}\n`),
      note: (text) => io.stderr.write(`${text}\n`),
      progress() {},
      finish() {},
    };
  }
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
  const bars = new MultiBar({
    stream: io.stderr as NodeJS.WritableStream,
    format: `${bar.label} [{bar}] {percentage}% | {done}/{size} MB | ETA {eta_formatted}`,
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    hideCursor: false,
    clearOnComplete: true,
    gracefulExit: true,
    fps: 10,
  });
  const progress: SingleBar = bars.create(bar.total, 0, { done: mb(0), size: mb(bar.total) });
  // Same terminal: lines go above the bar. stdout elsewhere (a file, a pipe): no interference.
  const above = io.stdout.isTTY === true;
  let finished = false;
  return {
    line(text) {
      if (above && !finished) bars.log(`${text}\n`);
      else io.stdout.write(`${text}\n`);
    },
    note(text) {
      if (!finished) bars.log(`${text}\n`);
      else io.stderr.write(`${text}\n`);
    },
    progress(done) {
      progress.update(done, { done: mb(done) });
    },
    finish() {
      if (finished) return;
      finished = true;
      progress.update(bar.total, { done: mb(bar.total) });
      // Flush the lines held for the next redraw, then clear the bar.
      bars.update();
      bars.stop();
    },
  };
}

/**
 * A progress bar for work done in one synchronous stretch (`movespec fit`): a single bar redraws
 * from inside update(), where the multi-bar above would wait for a timer that cannot fire.
 * Nothing is drawn unless stderr is a terminal or `force` is set.
 */
export function stepBar(
  io: Io,
  label: string,
  force?: boolean,
): { update(done: number, total: number, stage: string): void; stop(): void } {
  if (force === false || (force === undefined && io.stderr.isTTY !== true))
    return { update() {}, stop() {} };
  const bar = new SingleBar({
    stream: io.stderr as NodeJS.WritableStream,
    format: `${label} [{bar}] {percentage}% | {stage} | ETA {eta_formatted}`,
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    hideCursor: false,
    clearOnComplete: true,
    fps: 10,
    noTTYOutput: force === true,
    notTTYSchedule: 1000,
  });
  let started = false;
  return {
    update(done, total, stage) {
      if (!started) {
        bar.start(total, 0, { stage });
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, { stage });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
