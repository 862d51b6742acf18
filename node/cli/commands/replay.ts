/**
 * @module node/cli/commands/replay
 * `flow replay <workflow file> <runId> [nodeId]`: `replayRun` from the command line: runs a
 * finished run again as a new run with the same input, from a task or from the start. See
 * docs/time-travel.md ("CLI").
 */
import { resolve } from "node:path";
import { replayRun } from "../../../core/time-travel/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { loadWorkflow } from "../load-workflow.js";
import { runWithProgress } from "./time-travel-cli.js";
import { parseCli } from "./wait-cli.js";

const USAGE = `Usage: flow replay <workflow file> <runId> [nodeId] [options]

Runs a finished run again, as a new run with the same input: from the given task (the
outputs of what finished before it are kept) or, without one, from the start; in the
directory the original run worked in.

Options:
  --run-id <id>          Id of the new run (default: a new id)
  --root-dir <dir>       Where the new run works (default: where the original run worked)
  --json                 Print events as NDJSON

Example:
  flow replay review.tsx 7f3a review`;

export const replayCommand: CliCommand = {
  name: "replay",
  summary: "Run a finished run again (same input) from a task or from the start",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { "run-id": { type: "string" }, "root-dir": { type: "string" }, json: { type: "boolean" } });
    const [file, runId, nodeId, extra] = positionals;
    if (!file || !runId) throw new UsageError("give a workflow file and a run id.");
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
    const { workflow, path } = await loadWorkflow(file, io.cwd);
    return runWithProgress(io, values.json, (onProgress) =>
      replayRun(workflow, {
        runId,
        workflowPath: path,
        onProgress,
        ...(nodeId ? { nodeId } : {}),
        ...(values["run-id"] ? { newRunId: values["run-id"] } : {}),
        ...(values["root-dir"] ? { rootDir: resolve(io.cwd, values["root-dir"]) } : {}),
      }),
    );
  },
};
