/**
 * @module node/cli/commands/runs
 * `flow runs [runId]`: lists runs of a store, or shows one run: its nodes in plan order with
 * state, attempts and time spent, counts, and its most recent events; `--export` prints its
 * whole event log as JSON lines. See docs/cli.md.
 */
import type { AttemptRecord, FlowDb, NodeRecord, RunRecord, RunStatus, RunUsage } from "../../../core/engine/index.js";
import { ownerStateOf, type RunOwnerState } from "../../../core/engine/index.js";
import { RUN_STATUSES, shownNodeState } from "../../../core/engine/internal.js";
import { type CliCommand, type CliIO, UsageError, useColor } from "../command.js";
import { formatDuration, formatEvent } from "../progress.js";
import { formatTranscript, formatUsage } from "../transcript-print.js";
import { quoteIdent } from "../../../core/store/index.js";
import { type Spend, withInFlight } from "../../../core/agents/index.js";
import { DB_HELP, parseCli, resumeCommand, STORE_OPTIONS, storeCommand, type StoreOptions, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow runs [runId] [options]

Without a run id, lists runs (newest first), with their agents' tokens and cost. With one, shows the run: its nodes in plan order
(state, attempts, time spent, tokens and cost), counts, and its most recent events.

Options:
  --node <id>            With a run id: the task's agent transcript (messages, tool calls,
                         tokens, cost), attempt by attempt
  --output               With --node: the task's output row(s) instead
  --export               With a run id: every event of the run, one JSON object per line
                         (JSON lines, as the app's Export events downloads), oldest first
  --status <status>      Only runs with this status, one of:
                         ${RUN_STATUSES.join(", ")}
  --limit <n>            How many runs (default 20)
  --events <n>           With a run id: how many recent events to show (default 10)
${WORKFLOW_HELP}
${DB_HELP}`;

export const runsCommand: CliCommand = {
  name: "runs",
  summary: "List runs, or show one run",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, status: { type: "string" }, limit: { type: "string" }, events: { type: "string" }, node: { type: "string" }, output: { type: "boolean" }, export: { type: "boolean" } });
    const [given, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"; give at most one run id.`);
    const limit = countArg(values.limit, "--limit", 20);
    const eventCount = countArg(values.events, "--events", 10);
    const status = values.status;
    if (status !== undefined && !RUN_STATUSES.includes(status as RunStatus)) {
      throw new UsageError(`--status must be one of ${RUN_STATUSES.join(", ")}, not "${status}".`);
    }
    if (values.node !== undefined && !given) throw new UsageError("--node needs a run id.");
    if (values.output && values.node === undefined) throw new UsageError("--output goes with --node.");
    if (values.export && (!given || values.node !== undefined)) throw new UsageError("--export needs a run id (and no --node): flow runs <runId> --export > run.events.jsonl");
    return withStore(io, values, async (db) => {
      const runId = given === undefined ? undefined : await resolveRunId(db, given);
      if (runId && values.export) await exportEvents(db, runId, io);
      else if (runId && values.node !== undefined) await showNode(db, runId, values.node, { json: values.json === true, output: values.output === true }, io);
      else if (runId) await showRun(db, runId, { json: values.json === true, events: eventCount, where: values }, io);
      else await listRuns(db, { limit, ...(status ? { status: status as RunStatus } : {}) }, { json: values.json === true, where: values }, io);
      return 0;
    });
  },
};

/** A whole number of at least 1 (`--limit`, `--events`). */
function countArg(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${what} must be a whole number of at least 1, not "${text}".`);
  return n;
}

async function listRuns(db: FlowDb, filter: { limit: number; status?: RunStatus }, opts: { json: boolean; where: StoreOptions }, io: CliIO): Promise<void> {
  const runs = await db.listRuns(filter);
  if (opts.json) return io.stdout(`${JSON.stringify(runs, null, 2)}\n`);
  // A run left `running` by a process that is gone says so (it can be cancelled or resumed).
  const shown = (r: RunRecord) => (ownerStateOf(db.binding.env, r) === "gone" ? `${r.status} (owner gone)` : r.status);
  // Tokens and cost (child runs included) where a run's agents recorded usage, so far where an
  // attempt still runs; a list of runs that used no agent keeps its columns as they were.
  const usage = await Promise.all(runs.map(async (r) => spentText((await db.getRunUsage(r.runId)).total, r.finishedAtMs === null ? await db.getRunningSpend(r.runId) : [])));
  const width = Math.max(0, ...usage.map((u) => u.length));
  runs.forEach((r, i) => {
    const cost = width ? `${usage[i]!.padEnd(width)}  ` : "";
    const next = r.nextRunId ? `  → continued as ${r.nextRunId}` : "";
    io.stdout(`${new Date(r.createdAtMs).toISOString()}  ${shown(r).padEnd(16)} ${r.runId}  ${cost}${r.workflowName ?? ""}${pauseNote(r, opts.where) ? `  (${pauseNote(r, opts.where)})` : ""}${next}\n`);
  });
  if (runs.length === 0) io.stdout(filter.status ? `No ${filter.status} runs.\n` : "No runs.\n");
}

/** Spend in words: the store's (attempts that ended), with what attempts still running have spent so far. */
function spentText(stored: RunUsage["total"] | undefined, running: readonly Spend[]): string {
  const spent = formatUsage(withInFlight(stored?.attempts ? stored : undefined, running));
  return spent && running.length ? `${spent} so far` : spent;
}

/** What `flow runs <id>` reports about each node. */
interface NodeLine extends NodeRecord {
  /** Time spent in its attempts (an attempt still in progress counts up to now). */
  durationMs: number;
}

/** Counts of `flow runs <id>`. */
interface RunCounts {
  nodes: Record<string, number>;
  attempts: number;
  events: number;
}

/** `--export`: the run's whole event log as JSON lines, read a page at a time. */
async function exportEvents(db: FlowDb, runId: string, io: CliIO): Promise<void> {
  await db.requireRun(runId);
  for (let after = 0; ; ) {
    const page = await db.listEvents(runId, { afterSeq: after, limit: 1000 });
    if (page.length) io.stdout(page.map((e) => `${JSON.stringify(e)}\n`).join(""));
    if (page.length < 1000) return;
    after = page.at(-1)!.seq ?? after + page.length;
  }
}

/** `--node`: the task's transcript, or with `--output` its output rows. */
async function showNode(db: FlowDb, runId: string, nodeId: string, opts: { json: boolean; output: boolean }, io: CliIO): Promise<void> {
  const run = await db.requireRun(runId);
  if (opts.output) {
    const nodes = (await db.listNodes(runId)).filter((n) => n.nodeId === nodeId);
    const table = nodes.find((n) => n.outputTable)?.outputTable;
    const rows = table ? await db.store.query(`SELECT * FROM ${quoteIdent(table)} WHERE run_id = ? AND node_id = ? ORDER BY iteration`, [runId, nodeId]) : [];
    return io.stdout(`${JSON.stringify(rows.length === 1 ? rows[0] : rows, null, 2)}
`);
  }
  const transcript = await db.getTranscript(runId, nodeId);
  if (opts.json) return io.stdout(`${JSON.stringify(transcript, null, 2)}
`);
  // An attempt a dead process left in progress is not running (the run's resume marks it interrupted).
  const gone = ownerStateOf(db.binding.env, run) === "gone";
  const outcomes = (await db.listAttempts(runId, nodeId)).map((a) => (gone && a.state === "in-progress" ? { ...a, state: "left in progress" } : a));
  io.stdout(formatTranscript(transcript, useColor(io), outcomes));
}

async function showRun(db: FlowDb, runId: string, opts: { json: boolean; events: number; where: StoreOptions }, io: CliIO): Promise<void> {
  const run = await db.requireRun(runId);
  const [stored, attempts, eventTotal, frame, usage, running] = await Promise.all([db.listNodes(runId), db.listAttempts(runId), db.countEvents(runId), db.getFrame(runId), db.getRunUsage(runId), db.getRunningSpend(runId)]);
  const nodes = inPlanOrder(stored, frame?.tasks.map((t) => t.nodeId) ?? []);
  const events = await db.listEvents(runId, { afterSeq: Math.max(0, eventTotal - opts.events) });
  const now = Date.now();
  const lines = nodes.map((n): NodeLine => ({ ...n, durationMs: timeSpent(attempts, n, now) }));
  const counts: RunCounts = { nodes: {}, attempts: attempts.length, events: eventTotal };
  for (const n of nodes) counts.nodes[n.state] = (counts.nodes[n.state] ?? 0) + 1;
  if (opts.json) return io.stdout(`${JSON.stringify({ run, nodes: lines, counts, usage, runningSpend: running, recentEvents: events }, null, 2)}\n`);

  const color = useColor(io);
  io.stdout(`${header(run, now, ownerStateOf(db.binding.env, run), opts.where)}\n`);
  if (run.error) io.stdout(`  error: ${run.error.code}: ${run.error.message}\n`);
  io.stdout(lines.length ? "\nNodes (plan order):\n" : "\nNo nodes yet.\n");
  const width = Math.min(40, Math.max(4, ...lines.map((n) => label(n).length)));
  for (const n of lines) {
    const tries = `${n.attempts} attempt${n.attempts === 1 ? "" : "s"}`;
    const time = n.attempts ? formatDuration(n.durationMs) : "";
    // The store's spend of the task (on its first iteration's line), with what an attempt still running has spent so far.
    const ended = n.iteration === 0 ? usage.byNode[n.nodeId] : undefined;
    const live = running.filter((r) => r.nodeId === n.nodeId && r.iteration === n.iteration);
    const spent = spentText(ended, live);
    io.stdout(`  ${shownNodeState(n.state, run.status).padEnd(16)} ${label(n).padEnd(width)}  ${tries.padEnd(11)} ${time.padStart(8)}${spent ? `  ${spent}` : ""}${n.error ? `  ${n.error.code}: ${n.error.message}` : ""}\n`.replace(/ +\n$/, "\n"));
  }
  // As the lines read them: a task the ended run never reached is "not run" (JSON keeps the stored state).
  const shownCounts: Record<string, number> = {};
  for (const n of nodes) {
    const state = shownNodeState(n.state, run.status);
    shownCounts[state] = (shownCounts[state] ?? 0) + 1;
  }
  const byState = Object.entries(shownCounts).map(([state, count]) => `${count} ${state}`).join(", ");
  io.stdout(`\n${nodes.length} node${nodes.length === 1 ? "" : "s"}${byState ? ` (${byState})` : ""}, ${counts.attempts} attempt${counts.attempts === 1 ? "" : "s"}, ${eventTotal} event${eventTotal === 1 ? "" : "s"}\n`);
  if (usage.total.attempts || running.length) {
    const count = (n: number) => `${n} attempt${n === 1 ? "" : "s"}`;
    const ended = usage.total.attempts;
    // An attempt a dead process left in progress is no longer running (its run resumes it as interrupted).
    const how = ownerStateOf(db.binding.env, run) === "gone" ? "left in progress" : "still running";
    const over = !running.length ? count(ended) : ended ? `${count(ended)} and ${running.length} ${how}` : `${count(running.length)} ${how}`;
    const spent = spentText(usage.total, running);
    io.stdout(`Agents: ${spent} over ${over} (child runs included)\n`);
  }
  if (events.length) {
    io.stdout(`\nRecent events (last ${events.length} of ${eventTotal}):\n`);
    for (const e of events) io.stdout(`  #${String(e.seq).padEnd(5)} ${new Date(e.timestampMs).toISOString().slice(11, 23)}  ${formatEvent(e, color) ?? e.type}\n`);
  }
}

/**
 * Nodes in the order of the run's latest plan (its last rendered frame), the iterations of a
 * node together; nodes the plan no longer has follow, in the order they were first planned.
 */
function inPlanOrder(nodes: NodeRecord[], plan: string[]): NodeRecord[] {
  const rank = new Map<string, number>();
  for (const id of plan) if (!rank.has(id)) rank.set(id, rank.size);
  const first = new Map<string, number>();
  for (const n of nodes) first.set(n.nodeId, Math.min(first.get(n.nodeId) ?? Infinity, n.ordinal ?? Infinity));
  const key = (n: NodeRecord) => rank.get(n.nodeId) ?? plan.length + (first.get(n.nodeId) ?? 0);
  return [...nodes].sort((a, b) => key(a) - key(b) || (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0) || a.iteration - b.iteration);
}

function header(run: RunRecord, now: number, owner: RunOwnerState, where: StoreOptions): string {
  const end = run.finishedAtMs ?? (run.status === "running" ? now : run.updatedAtMs);
  return `Run ${run.runId}  ${run.status}${run.nextRunId ? ` as ${run.nextRunId}` : ""}${owner === "gone" ? ` (owner gone: continue it with ${resumeCommand(run.runId, where)}, or ${storeCommand(["flow", "cancel", run.runId], where)})` : ""}${run.workflowName ? `  (${run.workflowName})` : ""}${pauseNote(run, where) ? `: ${pauseNote(run, where)}` : ""}\n  started ${new Date(run.createdAtMs).toISOString()}, ${run.finishedAtMs ? "ended" : "last change"} after ${formatDuration(end - run.createdAtMs)}`;
}

function label(n: NodeRecord): string {
  return `${n.nodeId}${n.iteration ? `#${n.iteration}` : ""}`;
}

function timeSpent(attempts: AttemptRecord[], n: NodeRecord, now: number): number {
  let total = 0;
  for (const a of attempts) if (a.nodeId === n.nodeId && a.iteration === n.iteration) total += (a.finishedAtMs ?? (a.state === "in-progress" ? now : a.startedAtMs)) - a.startedAtMs;
  return total;
}

/** Why a paused run is paused, in words (empty for other runs); `where`: the store options given, for the command that resumes it. */
function pauseNote(run: RunRecord, where: StoreOptions): string {
  if (run.status !== "paused") return "";
  if (run.pauseReason === "rewind") return `rewound, waits to be resumed: ${resumeCommand(run.runId, where)}`;
  if (run.pauseReason === "shutdown") return "its host stopped; resumes when a host serving its workflow starts";
  return "paused by a person, waits to be resumed";
}
