/**
 * @module node/cli/commands/hijack
 * `flow hijack <runId> <nodeId>`: take over a task's CLI-agent session in this terminal with
 * the CLI's own resume command; when you leave it, the task is handed back (its next attempt
 * continues the session). See docs/agents.md ("Hijack") and docs/cli.md.
 */
import { resolve } from "node:path";
import { hijackNode } from "../../agents/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { DB_HELP, iterationArg, parseCli, printer, resumeHint, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow hijack <runId> <nodeId> [options]

Opens the task's CLI-agent session in this terminal with the CLI's native resume command
(claude --resume, codex resume, agy --conversation, pi --session, kimi --session,
forge --conversation-id, amp threads continue). When you exit it, the task is handed back:
with onHijackExit "complete" (default) resume the run and the task's next attempt continues
your session for its row; with "reopen" the task waits as pending. A task that is running
must be paused first.

Options:
  --iteration <n>        Iteration of the task (default: its latest with a session)
  --cwd <dir>            Directory to open the session in (default: where the agent ran
                         it, else the run's directory)
${WORKFLOW_HELP}
${DB_HELP}`;

export const hijackCommand: CliCommand = {
  name: "hijack",
  summary: "Take over a task's CLI-agent session in this terminal",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, iteration: { type: "string" }, cwd: { type: "string" } });
    const [given, nodeId, extra] = positionals;
    if (!given || !nodeId || extra !== undefined) throw new UsageError("give a run id and a node id.");
    const iteration = iterationArg(values.iteration);
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      const done = await hijackNode(db, { runId, nodeId, ...(iteration !== undefined ? { iteration } : {}), ...(values.cwd !== undefined ? { cwd: resolve(io.cwd, values.cwd) } : {}) });
      const { plan } = done;
      printer(io, values.json)(
        { runId, nodeId, engine: plan.engine, sessionId: plan.sessionId, exitCode: done.exitCode, resetNodes: done.resetNodes, onHijackExit: plan.onHijackExit },
        `Left the ${plan.engine} session ${plan.sessionId} (exit ${done.exitCode ?? "signal"}). Task ${nodeId} is pending again` +
          (plan.onHijackExit === "complete" ? ` and continues your session when the run resumes.\n${resumeHint(runId, values)}` : " (onHijackExit reopen).\n"),
      );
      return 0;
    });
  },
};
