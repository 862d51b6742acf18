/**
 * @module node/cli/commands/revert
 * `flow revert <runId> <nodeId> --attempt <n>`: `revertToAttempt` from the command line: puts
 * the workspace files back to the tree right after the attempt; no task or status changes.
 * See docs/time-travel.md ("CLI").
 */
import { revertToAttempt } from "../../../core/time-travel/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { ATTEMPT_OPTIONS, attemptArg, iterationArg, runAndNode, travelCommand } from "./time-travel-cli.js";
import { DB_HELP, parseCli, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow revert <runId> <nodeId> --attempt <n> [options]

Restores the workspace files to the tree right after a task attempt. The run's tasks, rows
and status do not change.

Options:
  --attempt <n>          Which attempt (required; flow timeline <runId> lists them)
  --iteration <n>        Loop iteration of the task (default 0)
  --force                Cross side effects that cannot be undone (the run is marked for attention)
  --no-revert            Do not undo revertible side effects (they then need --force)
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow revert 7f3a review --attempt 2`;

export const revertCommand: CliCommand = {
  name: "revert",
  summary: "Restore the files of a task attempt (no task or status change)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, ...ATTEMPT_OPTIONS, force: { type: "boolean" }, "no-revert": { type: "boolean" } });
    const [given, nodeId] = runAndNode(positionals);
    const attempt = attemptArg(values.attempt);
    if (attempt === undefined) throw new UsageError("--attempt is required (flow timeline <runId> lists the attempts).");
    const iteration = iterationArg(values.iteration) ?? 0;
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      return travelCommand(
        io,
        values.json,
        (onProgress) => revertToAttempt(db, { runId, nodeId, iteration, attempt, force: values.force === true, noRevert: values["no-revert"] === true, onProgress }),
        (r) => `Files of ${nodeId} attempt ${attempt} restored (${r.vcsPointer?.slice(0, 12)}).\n`,
      );
    });
  },
};
