/** A one-line progress bar on a TTY stream, redrawn at most every 100 ms. */
export interface ProgressBar {
  update(done: number): void;
  finish(): void;
}

export function createProgressBar(
  stream: NodeJS.WriteStream,
  total: number,
  label: string,
): ProgressBar {
  let last = 0;
  const draw = (done: number) => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 12));
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * width);
    stream.write(
      `\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%`,
    );
  };
  return {
    update(done) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      draw(done);
    },
    finish() {
      draw(total);
      stream.write("\n");
    },
  };
}

/** A bar that draws nothing (stderr is not a terminal, or the file is short). */
export const NO_PROGRESS: ProgressBar = { update() {}, finish() {} };
