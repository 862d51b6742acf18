/**
 * @module node/cli/commands/wake
 * `flow wake`: the parked runs that can progress now (a delivery arrived, a deadline passed, a
 * signal waits for them), through `listRunsToWake`. See docs/cli.md ("Waiting runs").
 */
import { listRunsToWake } from "../../../core/engine/index.js";
import type { CliCommand } from "../command.js";
import { DB_HELP, parseCli, printer, resumeCommand, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";

const USAGE = `Usage: flow wake [options]

Lists the parked runs (waiting-approval, waiting-event, waiting-timer) that can progress now:
a decision, answer, signal or event was delivered to them, or a deadline (timer, timeout,
auto-approval) passed, and the command that resumes each (flow resume <id>, with the
--workflow or --db given here).

Options:
${WORKFLOW_HELP}
${DB_HELP}`;

export const wakeCommand: CliCommand = {
  name: "wake",
  summary: "List parked runs that can continue now",
  usage: USAGE,
  async run(argv, io) {
    const { values } = parseCli(argv, STORE_OPTIONS);
    return withStore(io, values, async (db) => {
      const runs = await Promise.all(
        (await listRunsToWake(db)).map(async (runId) => {
          const run = await db.requireRun(runId);
          return { runId, status: run.status, workflowName: run.workflowName };
        }),
      );
      const listed = runs.map((r) => `${r.runId}  ${r.status.padEnd(16)} ${r.workflowName ?? ""}\n`).join("");
      const resume = `\nResume ${runs.length === 1 ? "it" : "each"} with:\n${runs.map((r) => `  ${resumeCommand(r.runId, values)}\n`).join("")}`;
      printer(io, values.json)(runs, runs.length ? listed + resume : "No parked run can continue now.\n");
      return 0;
    });
  },
};
