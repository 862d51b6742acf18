/**
 * @module node/cli/commands/runs
 * `flow runs [runId]`: lists runs of a store, or shows one run's nodes and events.
 */
import { parseArgs } from "node:util";
import { FlowDb } from "../../../core/engine/flow-db.js";
import type { RunStatus } from "../../../core/engine/types.js";
import { DEFAULT_DB_PATH } from "../../create-flow.js";
import type { CliCommand, CliIO } from "../command.js";
import { withStore } from "./wait-cli.js";

const USAGE = `Usage: flow runs [runId] [options]

Without a run id, lists runs (newest first). With one, shows its nodes and events.

Options:
  --db <path>        SQLite store (default: the store openFlowBackend resolves here,
                     else ${DEFAULT_DB_PATH})
  --status <status>  Only runs with this status
  --limit <n>        How many runs (default 20)
  --json             Print JSON`;

export const runsCommand: CliCommand = {
  name: "runs",
  summary: "List runs, or show one run",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { db: { type: "string" }, status: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    });
    return withStore(io, values.db, (db) => show(db, values, positionals[0], io));
  },
};

async function show(db: FlowDb, values: { status?: string; limit?: string; json?: boolean }, runId: string | undefined, io: CliIO): Promise<number> {
  const print = (v: unknown) => io.stdout(`${JSON.stringify(v, null, 2)}\n`);
  if (runId) {
    const run = await db.requireRun(runId);
    const [nodes, events] = await Promise.all([db.listNodes(runId), db.listEvents(runId)]);
    if (values.json) return print({ run, nodes, events }), 0;
    io.stdout(`${run.runId}  ${run.status}  ${run.workflowName ?? ""}\n`);
    for (const n of nodes) io.stdout(`  ${n.state.padEnd(12)} ${n.nodeId}${n.iteration ? `#${n.iteration}` : ""}  attempts ${n.attempts}${n.error ? `  ${n.error.code}` : ""}\n`);
    io.stdout(`  ${events.length} events\n`);
    return 0;
  }
  const runs = await db.listRuns({ limit: Number(values.limit ?? 20), ...(values.status ? { status: values.status as RunStatus } : {}) });
  if (values.json) return print(runs), 0;
  for (const r of runs) io.stdout(`${new Date(r.createdAtMs).toISOString()}  ${r.status.padEnd(16)} ${r.runId}  ${r.workflowName ?? ""}\n`);
  if (runs.length === 0) io.stdout("No runs.\n");
  return 0;
}
