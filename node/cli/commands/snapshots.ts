/**
 * @module node/cli/commands/snapshots
 * `flow snapshots <runId>`: the git snapshots of a run (refs under `refs/flow/runs/<run>/`),
 * the files an attempt changed (`--diff <nodeId>`, with `--patch` how each changed), and per-run
 * garbage collection (`--gc`).
 * See docs/time-travel.md ("CLI").
 */
import { attemptDiff, attemptFileDiffs, changeNote, listRunSnapshots, listTimeTravels, MAX_PATCH_CHARS, removeRunSnapshots, type RunSnapshot } from "../../../core/time-travel/index.js";
import { createGitVcs } from "../../vcs/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { ATTEMPT_OPTIONS, attemptArg, iterationArg, requireWorkspace } from "./time-travel-cli.js";
import { DB_HELP, parseCli, printer, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";
import { TABLES } from "../../../core/protocol.js";
import { plural } from "../../../core/util/index.js";

const USAGE = `Usage: flow snapshots <runId> [options]

Lists the snapshots of a run's workspace (git commits on refs/flow/runs/<run>/..., never on
your branches), shows the files an attempt changed, or deletes the run's snapshots.

Options:
  --diff <nodeId>        Files changed by an attempt of this task (its start -> end snapshots)
  --iteration <n>        With --diff: loop iteration (default 0)
  --attempt <n>          With --diff: which attempt (default the latest with both snapshots)
  --patch                With --diff: also print how each file changed (git's unified diff)
  --gc                   Delete the run's snapshot refs (time travel to this run then restores
                         rows only); git gc reclaims the objects later
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow snapshots 7f3a --diff review --patch`;

export const snapshotsCommand: CliCommand = {
  name: "snapshots",
  summary: "List, diff or delete a run's workspace snapshots",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, ...ATTEMPT_OPTIONS, diff: { type: "string" }, gc: { type: "boolean" }, patch: { type: "boolean" } });
    const [given, extra] = positionals;
    if (!given) throw new UsageError("give a run id.");
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
    if (values.diff !== undefined && values.gc) throw new UsageError("give --diff or --gc, not both.");
    if (values.patch && values.diff === undefined) throw new UsageError("--patch goes with --diff <nodeId>.");
    const print = printer(io, values.json);
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      await db.requireRun(runId);
      const [row] = await db.store.query<{ workspace_dir: string | null }>(`SELECT workspace_dir FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
      const workspace = requireWorkspace(runId, row?.workspace_dir);
      if (values.gc) {
        const removed = await removeRunSnapshots(db, runId);
        print({ runId, workspace, removed }, `Deleted ${plural(removed, "snapshot ref")} of run ${runId} in ${workspace}.\n`);
        return 0;
      }
      const snapshots = await listRunSnapshots(db, runId, createGitVcs(), workspace);
      if (values.diff === undefined) {
        // A time travel keeps the files it replaced on a ref of its own: said as what it was.
        const before = new Map((await listTimeTravels(db, runId)).map((t) => [t.beforePointer, t]));
        const at = (x: { nodeId: string; iteration: number; attempt: number }) => `${x.nodeId}${x.iteration ? `@${x.iteration}` : ""} #${x.attempt}`;
        const label = (s: RunSnapshot) => {
          if (s.nodeId !== undefined) return `${at({ nodeId: s.nodeId, iteration: s.iteration ?? 0, attempt: s.attempt ?? 0 })} ${s.edge}`;
          const t = before.get(s.pointer);
          return t ? `before the ${t.kind} to ${at(t)} at ${new Date(t.createdAtMs).toISOString()} (${s.ref})` : s.ref;
        };
        const text = snapshots.map((s) => `  ${s.pointer.slice(0, 12)}  ${label(s)}\n`).join("");
        print({ runId, workspace, snapshots }, snapshots.length ? `Snapshots of run ${runId} in ${workspace}:\n${text}` : `Run ${runId} has no snapshots in ${workspace}.\n`);
        return 0;
      }
      const iteration = iterationArg(values.iteration) ?? 0;
      const attempt = attemptArg(values.attempt);
      const at = { runId, nodeId: values.diff, iteration, ...(attempt !== undefined ? { attempt } : {}) };
      const { from, to, files } = await attemptDiff(db, at);
      const mark = { added: "A", modified: "M", deleted: "D" } as const;
      const text = files.map((f) => `  ${mark[f.status]} ${f.path}${changeNote(f) ? `  (${changeNote(f)})` : ""}\n`).join("");
      // With --patch, each file's unified diff, in the order listed.
      const patches = values.patch ? await attemptFileDiffs(db, { ...at, paths: files.map((f) => f.path) }) : [];
      const patchText = patches.map((p) => `\n${p.patch}${p.truncated ? `(cut at ${MAX_PATCH_CHARS} characters)\n` : ""}`).join("");
      print({ runId, nodeId: values.diff, iteration, from, to, files, ...(values.patch ? { patches } : {}) }, `${values.diff} changed ${plural(files.length, "file")} (${from.slice(0, 10)} -> ${to?.slice(0, 10)}):\n${text}${patchText}`);
      return 0;
    });
  },
};
