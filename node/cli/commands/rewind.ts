/**
 * @module node/cli/commands/rewind
 * `flow rewind <runId> <nodeId>`: `timeTravel` from the command line: restores the files the
 * attempt started from and sets it (and what came after it) back to pending. See
 * docs/time-travel.md ("CLI").
 */
import { timeTravel } from "../../../core/time-travel/time-travel.js";
import type { CliCommand } from "../command.js";
import { ATTEMPT_OPTIONS, attemptArg, iterationArg, runAndNode, travelCommand } from "./time-travel-cli.js";
import { withRun } from "./run-cli.js";
import { DB_HELP, parseCli, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow rewind <runId> <nodeId> [options]

Rolls a run back to a task attempt: the workspace files go back to the tree the attempt
started from (byte for byte), later attempts are cancelled and their rows deleted, and the
task and everything after it become pending. Resume the run to run them again.

Options:
  --iteration <n>        Loop iteration of the task (default 0)
  --attempt <n>          Which attempt (default the latest)
  --no-dependents        Reset only this task, not what came after it
  --no-files             Reset the rows only; leave the working tree as it is
  --force                Cross side effects that cannot be undone (the run is marked for attention)
  --no-revert            Do not undo revertible side effects (they then need --force)
${WORKFLOW_HELP}
${DB_HELP}

The workflow is the file the run recorded when it started (flow up), else --workflow.

Example:
  flow rewind 7f3a review && flow resume 7f3a`;

export const rewindCommand: CliCommand = {
  name: "rewind",
  summary: "Roll a run back to a task attempt (files and rows)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, {
      ...STORE_OPTIONS,
      ...ATTEMPT_OPTIONS,
      "no-dependents": { type: "boolean" },
      "no-files": { type: "boolean" },
      force: { type: "boolean" },
      "no-revert": { type: "boolean" },
    });
    const [runId, nodeId] = runAndNode(positionals);
    const iteration = iterationArg(values.iteration) ?? 0;
    const attempt = attemptArg(values.attempt);
    // The run's workflow (--workflow, else the file the run recorded) knows its output tables.
    return withRun(io, values, runId, ({ db }) =>
      travelCommand(
        io,
        values.json,
        (onProgress) =>
          timeTravel(db, {
            runId,
            nodeId,
            iteration,
            ...(attempt !== undefined ? { attempt } : {}),
            resetDependents: values["no-dependents"] !== true,
            restoreVcs: values["no-files"] !== true,
            force: values.force === true,
            noRevert: values["no-revert"] === true,
            onProgress,
          }),
        (r) => `Run ${runId} is ready to resume (${r.resetNodes.join(", ")} pending): flow resume ${runId}\n`,
      ),
    );
  },
};
