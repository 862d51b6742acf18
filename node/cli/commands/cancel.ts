/**
 * @module node/cli/commands/cancel
 * `flow cancel <runId>`: cancels a run wherever it executes, through `stopRun`
 * (core/engine/run-control.ts). See docs/cli.md ("Controlling runs").
 */
import { stopRun } from "../../../core/engine/index.js";
import type { CliCommand } from "../command.js";
import { oneRunId, withRun } from "./run-cli.js";
import { DB_HELP, parseCli, printer, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow cancel <runId> [options]

Cancels a run. A run another process executes (flow up, a Gateway) is asked through the store
and stops at its next heartbeat (in-flight tasks are aborted); a parked or paused run, or one
whose process is gone, is cancelled here through its workflow (the file the run recorded, or
--workflow). Cancelling a cancelled run changes nothing.

Options:
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow cancel 7f3a`;

export const cancelCommand: CliCommand = {
  name: "cancel",
  summary: "Cancel a run, whichever process executes it",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, STORE_OPTIONS);
    return withRun(io, values, oneRunId(positionals), async ({ runId, db, workflow }) => {
      const result = await stopRun(db, runId, "cancel", workflow ? { workflow } : {});
      printer(io, values.json)(result, `Run ${runId} is ${result.status}.\n`);
      return result.status === "cancelled" ? 0 : 1;
    });
  },
};
