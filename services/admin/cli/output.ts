/** Where results go: JSON for scripts (`--json`), aligned text for people. */
export interface Output {
  /** One object: `key: value` lines, or its JSON. */
  record(value: Record<string, unknown>): void;
  /** A list: a table with `columns`, or a JSON array. */
  table(rows: readonly Record<string, unknown>[], columns: readonly string[]): void;
  /** A line for people only (never in --json output). */
  note(text: string): void;
  /** The content of a file to be (a private key): always its JSON, whatever the format asked. */
  document(value: Record<string, unknown>): void;
}

export function createOutput(json: boolean, write: (text: string) => void): Output {
  return {
    record(value) {
      if (json) return write(`${JSON.stringify(value, null, 2)}\n`);
      const width = Math.max(...Object.keys(value).map((key) => key.length));
      for (const [key, item] of Object.entries(value)) {
        write(`${key.padEnd(width)}  ${format(item)}\n`);
      }
    },
    table(rows, columns) {
      if (json) return write(`${JSON.stringify(rows, null, 2)}\n`);
      if (rows.length === 0) return write("(none)\n");
      const cells = rows.map((row) => columns.map((column) => format(row[column])));
      const widths = columns.map((column, i) =>
        Math.max(column.length, ...cells.map((line) => line[i].length)),
      );
      const line = (values: readonly string[]) =>
        `${values
          .map((value, i) => value.padEnd(widths[i]))
          .join("  ")
          .trimEnd()}\n`;
      write(line(columns.map((column) => column.toUpperCase())));
      for (const row of cells) write(line(row));
    },
    note(text) {
      if (!json) write(`${text}\n`);
    },
    document(value) {
      write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

function format(value: unknown): string {
  if (value === undefined || value === null || value === "") return "-";
  if (Array.isArray(value)) return value.join(",");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
