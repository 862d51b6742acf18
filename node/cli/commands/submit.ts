/**
 * @module node/cli/commands/submit
 * `flow submit <runId> <nodeId> --value '<json>'`: answers a waiting human task through
 * `submitHumanTask`. See docs/cli.md ("Waiting runs").
 */
import { submitHumanTask } from "../../../core/engine/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { DB_HELP, iterationArg, parseCli, parseJsonArg, printer, resumeHint, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow submit <runId> <nodeId> --value '<json>' [options]

Submits the row a human task waits for. The row is checked against the task's output schema
when the run resumes; an invalid one is rejected there (HumanTaskRejected) and the task waits
again, up to its maxAttempts.

Options:
  --value <json>         The row, a JSON object (required)
  --by <user>            Who submits (recorded)
  --iteration <n>        The iteration that waits (default: the pending one)
${WORKFLOW_HELP}
${DB_HELP}`;

export const submitCommand: CliCommand = {
  name: "submit",
  summary: "Submit the answer of a pending human task",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, value: { type: "string" }, by: { type: "string" }, iteration: { type: "string" } });
    const [given, nodeId, extra] = positionals;
    if (!given || !nodeId || extra !== undefined) throw new UsageError("give a run id and a node id.");
    const value = parseJsonArg(values.value, "--value");
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError("--value must be a JSON object (the task's row).");
    const iteration = iterationArg(values.iteration);
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      const result = await submitHumanTask(db, {
        runId,
        nodeId,
        value: value as Record<string, unknown>,
        ...(iteration !== undefined ? { iteration } : {}),
        ...(values.by !== undefined ? { submittedBy: values.by } : {}),
      });
      const text = result.status === "duplicate" ? `"${nodeId}" of run ${runId} already has this answer; nothing changed.\n` : `Submitted "${nodeId}" of run ${runId}.\n${resumeHint(runId, values)}`;
      printer(io, values.json)(result, text);
      return 0;
    });
  },
};
