/**
 * @module node/cli/commands/pause
 * `flow pause <runId>`: pauses a run another process executes, through `stopRun`
 * (core/engine/run-control.ts). See docs/cli.md ("Controlling runs").
 */
import { stopRun } from "../../../core/engine/index.js";
import type { CliCommand } from "../command.js";
import { oneRunId, withRun } from "./run-cli.js";
import { DB_HELP, parseCli, printer, resumeCommand, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow pause <runId> [options]

Pauses a running run, whichever process executes it (flow up, a Gateway): nothing new starts,
in-flight tasks finish, then the run is paused. Continue it with flow resume <runId>.

Options:
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow pause 7f3a && flow resume 7f3a`;

export const pauseCommand: CliCommand = {
  name: "pause",
  summary: "Pause a running run, whichever process executes it",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, STORE_OPTIONS);
    return withRun(io, values, oneRunId(positionals), async ({ runId, db }) => {
      const result = await stopRun(db, runId, "pause");
      printer(io, values.json)(result, `Run ${runId} is ${result.status}.${result.status === "paused" ? ` Continue it: ${resumeCommand(runId, values)}` : ""}\n`);
      return result.status === "paused" ? 0 : 1;
    });
  },
};
