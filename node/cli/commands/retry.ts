/**
 * @module node/cli/commands/retry
 * `flow retry <runId> <nodeId>`: gives a task (and what depends on it) another try through
 * `retryTask`. See docs/cli.md ("Controlling runs").
 */
import { retryTask } from "../../../core/engine/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { withRun } from "./run-cli.js";
import { DB_HELP, iterationArg, parseCli, printer, resumeCommand, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow retry <runId> <nodeId> [options]

Resets a task (and, unless --no-dependents, what came after it) to pending, so the run runs
it again: a Gateway serving the workflow picks the run up; otherwise continue it with
flow resume <runId>. A run another live process executes is refused unless --force.

Options:
  --iteration <n>        The loop iteration of the task (default: the latest)
  --no-dependents        Reset only this task
  --force                Reset even while another live process executes the run
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow retry 7f3a deploy && flow resume 7f3a`;

export const retryCommand: CliCommand = {
  name: "retry",
  summary: "Give a task of a run another try",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, iteration: { type: "string" }, "no-dependents": { type: "boolean" }, force: { type: "boolean" } });
    const [given, nodeId, extra] = positionals;
    if (!given || !nodeId || extra !== undefined) throw new UsageError("give a run id and a node id.");
    const iteration = iterationArg(values.iteration);
    return withRun(io, values, given, async ({ runId, db }) => {
      const result = await retryTask(db, {
        runId,
        nodeId,
        ...(iteration !== undefined ? { iteration } : {}),
        resetDependents: values["no-dependents"] !== true,
        force: values.force === true,
      });
      const text = result.success ? `Reset ${result.resetNodes.join(", ")} of run ${runId}. Continue it: ${resumeCommand(runId, values)}\n` : `Failed: ${result.error}\n`;
      printer(io, values.json)(result, text);
      return result.success ? 0 : 1;
    });
  },
};
