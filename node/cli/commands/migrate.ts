/**
 * @module node/cli/commands/migrate
 * `flow migrate`: moves the project's SQLite store into PGlite or PostgreSQL with
 * `migrateFlowStore`, showing a line per table. See docs/backends.md, "Migrating a store".
 */
import { parseArgs } from "node:util";
import { migrateFlowStore, type MigrateStoreOptions, type MigrationProgressEvent, type MigrationResult } from "../../migrate-store.js";
import { type CliCommand, type CliIO, UsageError } from "../command.js";
import { DB_DEFAULT } from "./wait-cli.js";

const USAGE = `Usage: flow migrate [options]

Copies the SQLite store into PGlite or PostgreSQL in one transaction (all or nothing), writes a
marker next to the SQLite file so that openFlowBackend opens the new store, and removes the
SQLite files unless --keep-sqlite. Runs resume on the new store where they stopped.

Options:
  --to <backend>       pglite | postgres (default: FLOW_BACKEND or flow.config.json, else pglite)
  --db <path>          SQLite store file to copy (${DB_DEFAULT})
  --url <url>          PostgreSQL URL (default: FLOW_DATABASE_URL, flow.config.json, DATABASE_URL)
  --pglite-dir <dir>   PGlite data dir (default: FLOW_PGLITE_DIR, flow.config.json, .flow/pglite)
  --keep-sqlite        Keep the SQLite files after the copy
  --batch-size <n>     Rows per insert statement (default 500)
  --json               Print the result as JSON (progress goes to stderr)`;

/** Prints one progress event as a line. */
function progressLine(e: MigrationProgressEvent): string {
  const of = (i: number, n: number) => `[${String(i + 1).padStart(String(n).length)}/${n}]`;
  if (e.type === "table-start") return `${of(e.index, e.tableCount)} ${e.table}: copying ${e.sourceRows} rows`;
  if (e.type === "table-copied") return `${of(e.index, e.tableCount)} ${e.table}: ${e.targetRows} rows in ${e.durationMs} ms`;
  return `Copied ${e.rowCount} rows of ${e.tableCount} tables (${e.runCount} runs) in ${e.durationMs} ms`;
}

function summary(r: MigrationResult): string {
  const where = r.target.backend === "pglite" ? `PGlite data dir ${r.target.dataDir}` : `PostgreSQL ${r.target.url}`;
  return [
    `Migrated ${r.dbPath} to ${where} (schema version ${r.schemaVersion}).`,
    ...r.skipped.map((s) => `Not copied: ${s.table} (${s.reason}).`),
    `Marker: ${r.markerPath}`,
    r.sqliteRemoved ? "The SQLite files were removed." : `The SQLite store was kept at ${r.dbPath}; new runs go to the migrated store.`,
    r.target.backend === "postgres" ? "Open it with openFlowBackend and FLOW_DATABASE_URL (the marker keeps no password)." : "openFlowBackend in this directory now opens it.",
    "Workflow files that call createFlow still open SQLite (and warn): move them to openFlowBackend.",
  ].join("\n");
}

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "Move the SQLite store into PGlite or PostgreSQL",
  usage: USAGE,
  async run(argv: string[], io: CliIO) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        to: { type: "string" },
        db: { type: "string" },
        url: { type: "string" },
        "pglite-dir": { type: "string" },
        "keep-sqlite": { type: "boolean" },
        "batch-size": { type: "string" },
        json: { type: "boolean" },
      },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.to !== undefined && values.to !== "pglite" && values.to !== "postgres") throw new UsageError(`--to must be pglite or postgres, not "${values.to}"`);
    const batchSize = values["batch-size"] === undefined ? undefined : Number(values["batch-size"]);
    if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize > 0)) throw new UsageError(`--batch-size must be a positive integer`);
    const progress = values.json ? io.stderr : io.stdout;
    const opts: MigrateStoreOptions = {
      cwd: io.cwd,
      env: io.env,
      onProgress: (e) => progress(`${progressLine(e)}\n`),
      ...(values.to ? { to: values.to } : {}),
      ...(values.db ? { dbPath: values.db } : {}),
      ...(values.url ? { url: values.url } : {}),
      ...(values["pglite-dir"] ? { pgliteDataDir: values["pglite-dir"] } : {}),
      ...(values["keep-sqlite"] ? { keepSqlite: true } : {}),
      ...(batchSize ? { batchSize } : {}),
    };
    const result = await migrateFlowStore(opts);
    io.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${summary(result)}\n`);
    return 0;
  },
};
