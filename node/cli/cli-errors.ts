/**
 * @module node/cli/cli-errors
 * How a failed command is reported: one line `flow <command>: <CODE>: <message>`, and the
 * exit code (2 for usage mistakes, 1 for everything else). The stack trace is printed only
 * with `--verbose`. Library errors keep their wording for library users; where a library
 * message tells a library user which option to pass (`resume: true`, `force: true`), the CLI
 * says which flag to add instead (FLAG_HINTS). See docs/cli.md ("Errors and exit codes").
 */
import { type FlowError, isFlowError } from "../../core/errors.js";
import { EXIT, UsageError } from "./command.js";

/** What the dispatcher prints for a failure, and the exit code. */
export interface CliFailure {
  line: string;
  exitCode: number;
}

/**
 * Formats a failure of `flow <command>`.
 * @example
 * const { line, exitCode } = describeFailure("up", error, { verbose: false });
 */
export function describeFailure(command: string, error: unknown, opts: { verbose: boolean }): CliFailure {
  const usage = usageMessage(error);
  if (usage !== undefined) {
    return { line: `flow ${command}: INVALID_ARGUMENT: ${usage} See \`flow ${command} --help\`.\n`, exitCode: EXIT.usage };
  }
  const stack = opts.verbose ? stackOf(error) : "";
  if (isFlowError(error)) return { line: `flow ${command}: ${error.code}: ${cliMessage(error)}${stack}\n`, exitCode: EXIT.failed };
  const message = error instanceof Error ? error.message : String(error);
  const rerun = opts.verbose ? "" : " Run again with --verbose for the stack trace.";
  return { line: `flow ${command}: INTERNAL: ${firstLine(message)}${rerun}${stack}\n`, exitCode: EXIT.failed };
}

/** The stack of an error and of its causes, for --verbose. */
function stackOf(error: unknown): string {
  let text = "";
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) text += `\n${depth ? "Caused by: " : ""}${e.stack ?? e.message}`;
  return text;
}

/** The usage message of a UsageError or of a `node:util` parseArgs error; undefined for other errors. */
function usageMessage(error: unknown): string | undefined {
  if (error instanceof UsageError) return sentence(error.message);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) return undefined;
  const message = (error as Error).message;
  // "Unknown option '--bogus'. To specify a positional argument starting with a '-', ..."
  const option = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (option !== undefined) return `unknown option ${option}.`;
  return sentence(firstLine(message));
}

/**
 * Library error codes whose message ends by naming a library option (`...; pass force: true to
 * take it now.`): the CLI keeps the message up to that clause and names the flag instead.
 */
const FLAG_HINTS: Partial<Record<string, string>> = {
  RUN_EXISTS: "Add --resume to continue it, or choose another --run-id.",
  RUN_ALREADY_RUNNING: "Add --force to take it over now.",
  WORKFLOW_MISMATCH: "Check --run-id and the file, or add --force to resume it with this file anyway.",
  TIME_TRAVEL_SIDE_EFFECT_BLOCKED: "Nothing changed. Add --force to cross them (the run is then marked for attention).",
};

/**
 * The message of a FlowError as the CLI prints it: one line, flags instead of library options.
 * @example
 * cliMessage(new FlowError("RUN_EXISTS", "Run r1 already exists (status finished); pass resume: true to continue it."));
 * // "Run r1 already exists (status finished). Add --resume to continue it, or choose another --run-id."
 */
export function cliMessage(error: FlowError): string {
  const hint = FLAG_HINTS[error.code];
  const message = firstLine(error.message);
  if (!hint) return message;
  const clause = message.split(";")[0]!.trim().replace(/\.$/, "");
  return `${clause}. ${hint}`;
}

/**
 * The candidate closest to a mistyped `name` (edit distance at most 2, or a prefix of it);
 * undefined when none is close.
 * @example
 * closestName("upp", ["up", "runs"]); // "up"
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = c.startsWith(name) && name.length >= 2 ? 1 : editDistance(name, c);
    if (d <= 2 && (!best || d < best.distance)) best = { name: c, distance: d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function firstLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.length <= 1 ? (lines[0] ?? "") : `${lines[0]} ${lines.slice(1).join("; ")}`;
}

function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
