/**
 * @module node/cli/commands/wait-cli
 * What the wait commands (`approvals`, `approve`, `submit`, `signal`, `wake`) share: argument
 * parsing, opening the project's store (or a workflow file's), JSON arguments and output. See docs/cli.md ("Waiting runs").
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { quote } from "shell-quote";
import { FlowDb } from "../../../core/engine/index.js";
import { FlowError } from "../../../core/errors.js";
import { resolveBackend } from "../../config/index.js";
import { createFlow, DEFAULT_DB_PATH } from "../../create-flow.js";
import { openFlowBackend } from "../../open-flow-backend.js";
import { type CliIO, UsageError } from "../command.js";
import { loadWorkflow } from "../load-workflow.js";

/** The `--db`, `--workflow` and `--json` options of the commands that read a store. */
export const STORE_OPTIONS = { db: { type: "string" }, workflow: { type: "string" }, json: { type: "boolean" } } as const;

/** Where a command's store is, as the user gave it (`--db`, `--workflow`; neither: the project's). */
export interface StoreOptions {
  db?: string | undefined;
  workflow?: string | undefined;
}

/** How every command describes where its store is when `--db` is not given (one wording everywhere). */
export const DB_DEFAULT = `default: the store the project resolves (FLOW_BACKEND, FLOW_DB_PATH, flow.config.json...), else ${DEFAULT_DB_PATH}`;

/** `--workflow` help line. */
export const WORKFLOW_HELP = `  --workflow <file>      Use the store this workflow file opens (the one flow up <file> uses)`;

/** `--db` and `--json` help lines. */
export const DB_HELP = `  --db <path>            SQLite store file (${DB_DEFAULT})\n  --json                 Print JSON`;

/** `parseArgs` in strict mode; its errors are usage errors (exit 2), reported by the dispatcher. */
export function parseCli<T extends ParseArgsConfig["options"]>(argv: string[], options: T) {
  return parseArgs({ args: argv, options: options as NonNullable<T>, allowPositionals: true, strict: true });
}

/**
 * Runs `fn` on the store a command acts on, then closes it:
 * - `--workflow <file>`: the store that workflow file's factory opens (exactly what `flow up` uses);
 * - `--db <path>`: that SQLite file (relative to the working directory);
 * - otherwise the store `openFlowBackend` resolves there (FLOW_BACKEND, FLOW_DATABASE_URL,
 *   flow.config.json, a migration marker, or `.flow/flow.db`).
 * A SQLite store that does not exist is STORE_NOT_FOUND rather than a new empty one: these
 * commands act on runs already there.
 */
export async function withStore<T>(io: CliIO, where: StoreOptions, fn: (db: FlowDb) => Promise<T>): Promise<T> {
  if (where.db !== undefined && where.workflow !== undefined) throw new UsageError("give --db or --workflow, not both.");
  if (where.workflow !== undefined) {
    const { workflow } = await loadWorkflow(where.workflow, io.cwd);
    const db = new FlowDb(workflow);
    try {
      return await fn(db);
    } finally {
      await db.store.close();
    }
  }
  const resolved = where.db === undefined ? resolveBackend({ cwd: io.cwd, env: io.env }) : undefined;
  const dbPath = resolve(io.cwd, where.db ?? resolved?.dbPath ?? DEFAULT_DB_PATH);
  if ((resolved === undefined || resolved.backend === "sqlite") && !existsSync(dbPath)) {
    throw new FlowError("STORE_NOT_FOUND", `No Flow store at ${dbPath}. Pass --workflow <file> (the store your workflow file opens) or --db <path>.`, { path: dbPath });
  }
  const api = where.db === undefined ? await openFlowBackend(undefined, { cwd: io.cwd, env: io.env }) : createFlow({}, { dbPath });
  const db = new FlowDb(api.db);
  try {
    return await fn(db);
  } finally {
    await db.store.close();
  }
}

/** Parses a JSON argument; `what` names the option for the usage error. */
export function parseJsonArg(text: string | undefined, what: string): unknown {
  if (text === undefined) throw new UsageError(`${what} is required.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} must be JSON: ${(error as Error).message}`);
  }
}

/** A non-negative integer option (`--iteration`). */
export function iterationArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--iteration must be a whole number >= 0, not "${text}".`);
  return n;
}

/** Prints `value` as JSON with `--json`, else `text`. */
export function printer(io: CliIO, json: boolean | undefined) {
  return (value: unknown, text: string) => io.stdout(json ? `${JSON.stringify(value, null, 2)}\n` : text);
}

/**
 * The command that resumes `runId`, naming the store the user named (`--workflow` or `--db`, as
 * given): pasted into the same directory, it finds the run (`flow resume` alone reads the
 * project's default store).
 * @example
 * resumeCommand("7f3a", { workflow: "release.tsx" }); // "flow resume 7f3a --workflow release.tsx"
 */
export function resumeCommand(runId: string, where: StoreOptions): string {
  return storeCommand(["flow", "resume", runId], where);
}

/**
 * A command line (`words`, shell-quoted) with the store options the user gave.
 * @example
 * storeCommand(["flow", "cancel", "7f3a"], { db: "my flow.db" }); // "flow cancel 7f3a --db 'my flow.db'"
 */
export function storeCommand(words: string[], where: StoreOptions): string {
  const store = where.workflow !== undefined ? ["--workflow", where.workflow] : where.db !== undefined ? ["--db", where.db] : [];
  return quote([...words, ...store]);
}

/** The line telling the user how the run continues after a delivery (`where`: the store options given). */
export function resumeHint(runId: string, where: StoreOptions): string {
  return `The run continues when it is resumed: ${resumeCommand(runId, where)} (flow wake lists runs ready to continue).\n`;
}
