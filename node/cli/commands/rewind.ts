/**
 * @module node/cli/commands/rewind
 * `flow rewind <runId> <nodeId>`: `timeTravel` from the command line: restores the files the
 * attempt started from and sets it (and what came after it) back to pending. See
 * docs/time-travel.md ("CLI").
 */
import { timeTravel } from "../../../core/time-travel/index.js";
import type { CliCommand } from "../command.js";
import { ATTEMPT_OPTIONS, attemptArg, formatDecisions, iterationArg, runAndNode, travelCommand } from "./time-travel-cli.js";
import { withRun } from "./run-cli.js";
import { DB_HELP, parseCli, resumeCommand, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow rewind <runId> <nodeId> [options]

Rolls a run back to a task attempt: the workspace files go back to the tree the attempt
started from (byte for byte), later attempts are cancelled and their rows deleted, and the
task and everything after it become pending. Approvals, human tasks, signals and events
among them are asked again. The run is paused: no Gateway picks it up until you resume it.

Options:
  --iteration <n>        Loop iteration of the task (default 0)
  --attempt <n>          Which attempt (default the latest)
  --no-dependents        Reset only this task, not what came after it
  --no-files             Reset the rows only; leave the working tree as it is
  --force                Cross side effects that cannot be undone (the run is marked for attention)
  --no-revert            Do not undo revertible side effects (they then need --force)
  --keep-decisions       Keep the decisions of reset approvals, human tasks, signals and
                         events (default: they are asked again before what follows them runs)
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
      "keep-decisions": { type: "boolean" },
    });
    const [given, nodeId] = runAndNode(positionals);
    const iteration = iterationArg(values.iteration) ?? 0;
    const attempt = attemptArg(values.attempt);
    // The run's workflow (--workflow, else the file the run recorded) knows its output tables.
    return withRun(io, values, given, ({ runId, db }) =>
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
            keepDecisions: values["keep-decisions"] === true,
            onProgress,
          }),
        (r) => `${formatDecisions(r.decisions ?? [])}Run ${runId} is paused until you resume it (${r.resetNodes.join(", ")} pending): ${resumeCommand(runId, values)}\n`,
      ),
    );
  },
};
