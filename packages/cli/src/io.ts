/** The terminal the command talks to: streams, whether they are terminals, colour, the output mode. */
import { styleText } from "node:util";

export interface Io {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** stdin and stderr are terminals: a person can be asked. */
  readonly interactive: boolean;
  /** One JSON document on stdout instead of human output. */
  readonly json: boolean;
  /** Colour on: stdout is a terminal, `NO_COLOR` is unset and `--no-color` was not given. */
  readonly color: boolean;
}

type Style = Parameters<typeof styleText>[0];

/** `text` in `style` when colour is on, else as it is. */
export function paint(io: Io, style: Style, text: string): string {
  return io.color ? styleText(style, text) : text;
}

export function out(io: Io, line: string): void {
  io.stdout.write(`${line}\n`);
}

export function err(io: Io, line: string): void {
  io.stderr.write(`${line}\n`);
}

/** Left-aligned columns; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}
