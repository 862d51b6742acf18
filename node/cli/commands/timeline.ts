/**
 * @module node/cli/commands/timeline
 * `flow timeline <runId>`: the run's task attempts in the order they started, with the
 * snapshots each one recorded (the tree it started from and the tree after it), the run's
 * rewinds and reverts, and its attention mark. See docs/time-travel.md ("CLI").
 */
import { getRunAttention, listTimeTravels } from "../../../core/time-travel/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { formatDuration } from "../progress.js";
import { DB_HELP, parseCli, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";
import { parse } from "../../../core/engine/internal.js";
import { TABLES } from "../../../core/protocol.js";
import { foldAlike, formatCount, isFolded, plural } from "../../../core/util/index.js";

const USAGE = `Usage: flow timeline <runId> [options]

Lists the run's task attempts in the order they started: state, duration and the snapshots
each recorded (start -> end; "-" when the workspace is not a git repository), then the run's
rewinds and reverts. Pick an attempt here for flow rewind, flow revert or flow fork.

Options:
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow timeline 7f3a --workflow review.tsx`;

export const timelineCommand: CliCommand = {
  name: "timeline",
  summary: "A run's task attempts with their snapshots, rewinds and reverts",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, STORE_OPTIONS);
    const [given, extra] = positionals;
    if (!given) throw new UsageError("give a run id.");
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      const run = await db.requireRun(runId);
      const rows = await db.store.query<Record<string, unknown>>(
        `SELECT node_id, iteration, attempt, state, started_at_ms, finished_at_ms, vcs_start_pointer, vcs_pointer, error_json FROM ${TABLES.attempts} WHERE run_id = ? ORDER BY started_at_ms, attempt`,
        [runId],
      );
      const attempts = rows.map((r) => ({
        nodeId: String(r.node_id),
        iteration: Number(r.iteration),
        attempt: Number(r.attempt),
        state: String(r.state),
        startedAtMs: Number(r.started_at_ms),
        finishedAtMs: r.finished_at_ms === null ? null : Number(r.finished_at_ms),
        vcsStartPointer: (r.vcs_start_pointer as string | null) ?? null,
        vcsPointer: (r.vcs_pointer as string | null) ?? null,
        errorCode: parse<{ code?: string } | null>(r.error_json)?.code ?? null,
      }));
      const [timeTravels, attention] = await Promise.all([listTimeTravels(db, runId), getRunAttention(db, runId)]);
      if (values.json) {
        io.stdout(`${JSON.stringify({ run: { runId, status: run.status, workflowName: run.workflowName }, attempts, timeTravels, attention }, null, 2)}\n`);
        return 0;
      }
      io.stdout(`Run ${runId}  ${run.status}${run.workflowName ? `  (${run.workflowName})` : ""}\n`);
      if (attention) io.stdout(`  needs attention: a time travel crossed ${attention.effects.map((e) => e.toolName).join(", ")} with --force\n`);
      io.stdout(attempts.length ? "\nAttempts (in start order):\n" : "\nNo attempts yet.\n");
      const short = (p: string | null) => (p ? p.slice(0, 10) : "-");
      const line = (a: (typeof attempts)[number], name: string, took: string) =>
        io.stdout(`  ${new Date(a.startedAtMs).toISOString().slice(11, 23)}  ${name.padEnd(28)} ${a.state.padEnd(12)} ${took.padStart(8)}  ${short(a.vcsStartPointer)} -> ${short(a.vcsPointer)}${a.errorCode ? `  ${a.errorCode}` : ""}\n`);
      const task = (a: (typeof attempts)[number]) => `${a.nodeId}${a.iteration ? `@${a.iteration}` : ""}`;
      // A task retried thousands of times the same way (same state, same snapshots): its first
      // and last attempts, and one line for those between (--json lists every one).
      const alike = (a: (typeof attempts)[number], b: (typeof attempts)[number]) =>
        a.nodeId === b.nodeId && a.iteration === b.iteration && a.state === b.state && a.errorCode === b.errorCode && a.vcsStartPointer === b.vcsStartPointer && a.vcsPointer === b.vcsPointer;
      for (const row of foldAlike(attempts, alike)) {
        if (isFolded(row)) line(row.items[0]!, `${task(row.items[0]!)} #${row.items[0]!.attempt}…#${row.items.at(-1)!.attempt}`, `×${formatCount(row.items.length)}`);
        else line(row, `${task(row)} #${row.attempt}`, row.finishedAtMs === null ? "" : formatDuration(row.finishedAtMs - row.startedAtMs));
      }
      if (timeTravels.length) io.stdout("\nRewinds and reverts:\n");
      for (const t of timeTravels) {
        io.stdout(`  ${new Date(t.createdAtMs).toISOString().slice(11, 23)}  ${t.kind.padEnd(7)} to ${t.nodeId}${t.iteration ? `@${t.iteration}` : ""} #${t.attempt}  ${t.status}${t.forcedEffects ? `  (${plural(t.forcedEffects, "side effect")} forced)` : ""}${t.error ? `  ${t.error}` : ""}\n`);
      }
      return 0;
    });
  },
};
