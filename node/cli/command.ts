/**
 * @module node/cli/command
 * The shape of a CLI command. One file per command in `commands/`; each parses and prints,
 * and calls the same library function a user would (STYLE.md: no monolithic CLI).
 */

/** Where a command reads and writes; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Whether stdout is a terminal (colors, live progress). */
  isTTY: boolean;
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Resolves to the process exit code. */
  run(argv: string[], io: CliIO): Promise<number>;
}

/** Exit codes shared by the commands. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/**
 * Whether to color output: only on a terminal, and never when NO_COLOR is set to a non-empty
 * value (https://no-color.org).
 * @example
 * const line = formatEvent(event, useColor(io));
 */
export function useColor(io: CliIO): boolean {
  return io.isTTY && !io.env.NO_COLOR;
}

/**
 * Paints text with an ANSI color code when `color` (`useColor`), else leaves it as it is.
 * @example
 * const c = painter(useColor(io));
 * io.stdout(`${c(31, "✗")} failed\n`);
 */
export function painter(color: boolean): (code: number, s: string) => string {
  return (code, s) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
}

/** A usage mistake: printed as one line pointing at `--help`, exit code 2. */
export class UsageError extends Error {}
