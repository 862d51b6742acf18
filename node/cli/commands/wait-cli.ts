/**
 * @module node/cli/commands/wait-cli
 * What the wait commands (`approvals`, `approve`, `submit`, `signal`, `wake`) share: argument
 * parsing that reports mistakes as usage errors, opening an existing SQLite store, JSON
 * arguments and output. See docs/cli.md ("Waiting runs").
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { FlowDb } from "../../../core/engine/flow-db.js";
import { FlowError } from "../../../core/errors.js";
import { resolveBackend } from "../../config/resolve-backend.js";
import { createFlow, DEFAULT_DB_PATH } from "../../create-flow.js";
import { openFlowBackend } from "../../open-flow-backend.js";
import { type CliIO, UsageError } from "../command.js";

/** The `--db` and `--json` options every wait command takes. */
export const STORE_OPTIONS = { db: { type: "string" }, json: { type: "boolean" } } as const;

/** `--db` help line. */
export const DB_HELP = `  --db <path>            SQLite store (default ${DEFAULT_DB_PATH})\n  --json                 Print JSON`;

/** `parseArgs` with unknown options and missing values reported as usage errors. */
export function parseCli<T extends ParseArgsConfig["options"]>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: options as NonNullable<T>, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Runs `fn` on the project's store, then closes it: the SQLite file at `--db` when given (relative
 * to the working directory), else the store `openFlowBackend` resolves there (FLOW_BACKEND,
 * FLOW_DATABASE_URL, flow.config.json, a migration marker, or `.flow/flow.db`). A SQLite store
 * that does not exist is an error rather than a new empty one: these commands act on runs
 * already there.
 */
export function withStore<T>(io: CliIO, dbOption: string | undefined, fn: (db: FlowDb) => Promise<T>): Promise<T> {
  return withApiDb(io, dbOption, (handle) => fn(new FlowDb(handle)));
}

/** As `withStore`, with the store's `db` handle (for library functions that take one). */
export async function withApiDb<T>(io: CliIO, dbOption: string | undefined, fn: (db: unknown) => Promise<T>): Promise<T> {
  const resolved = dbOption === undefined ? resolveBackend({ cwd: io.cwd, env: io.env }) : undefined;
  const dbPath = resolve(io.cwd, dbOption ?? resolved?.dbPath ?? DEFAULT_DB_PATH);
  if ((resolved === undefined || resolved.backend === "sqlite") && !existsSync(dbPath)) {
    throw new FlowError("STORE_NOT_FOUND", `No Flow store at ${dbPath}. Pass --db <path> to the store your workflow uses (createFlow's dbPath).`, { path: dbPath });
  }
  const api = dbOption === undefined ? await openFlowBackend(undefined, { cwd: io.cwd, env: io.env }) : createFlow({}, { dbPath });
  try {
    return await fn(api.db);
  } finally {
    await new FlowDb(api.db).store.close();
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

/** The line telling the user how the run continues after a delivery. */
export function resumeHint(runId: string): string {
  return `The run continues when it is resumed: flow up <workflow file> --run-id ${runId} --resume (flow wake lists runs ready to continue).\n`;
}
