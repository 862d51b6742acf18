/**
 * @module node/cli/commands/replay
 * `flow replay [workflow file] <runId> [nodeId]`: `replayRun` from the command line: runs a
 * finished run again as a new run with the same input, from a task or from the start. Without
 * the file, the one the run recorded. See docs/time-travel.md ("CLI").
 */
import { resolve } from "node:path";
import { replayRun } from "../../../core/time-travel/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { withRunWorkflow } from "./run-cli.js";
import { runWithProgress } from "./time-travel-cli.js";
import { parseCli, STORE_OPTIONS } from "./wait-cli.js";

const USAGE = `Usage: flow replay [workflow file] <runId> [nodeId] [options]

Runs a finished run again, as a new run with the same input: from the given task (the
outputs of what finished before it are kept) or, without one, from the start; in the
directory the original run worked in. The workflow is the file given first, else --workflow,
else the file the run recorded when it started (flow up).

Options:
  --run-id <id>          Id of the new run (default: a new id)
  --root-dir <dir>       Where the new run works (default: where the original run worked)
  --workflow <file>      The workflow file (and its store), instead of the one the run recorded
  --db <path>            SQLite store file, to find a run whose workflow file is recorded
  --json                 Print events as NDJSON

Example:
  flow replay 7f3a review
  flow replay review.tsx 7f3a`;

export const replayCommand: CliCommand = {
  name: "replay",
  summary: "Run a finished run again (same input) from a task or from the start",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, "run-id": { type: "string" }, "root-dir": { type: "string" } });
    return withRunWorkflow(io, values, "replay", positionals, ({ workflow, workflowPath, args: [runId, nodeId, extra] }) => {
      if (!runId) throw new UsageError("give a run id (the workflow file before it is optional).");
      if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
      return runWithProgress(io, values.json, (onProgress) =>
        replayRun(workflow, {
          runId,
          workflowPath,
          onProgress,
          ...(nodeId ? { nodeId } : {}),
          ...(values["run-id"] ? { newRunId: values["run-id"] } : {}),
          ...(values["root-dir"] ? { rootDir: resolve(io.cwd, values["root-dir"]) } : {}),
        }),
      );
    });
  },
};
