/**
 * @module node/cli/commands/fork
 * `flow fork [workflow file] <runId> <nodeId>`: `forkRun` from the command line: a new run
 * that starts at a task attempt of an existing run, optionally on an edited input. Without the
 * file, the one the run recorded. See docs/time-travel.md ("CLI").
 */
import { resolve } from "node:path";
import { forkRun } from "../../../core/time-travel/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { withRunWorkflow } from "./run-cli.js";
import { ATTEMPT_OPTIONS, attemptArg, iterationArg, runWithProgress } from "./time-travel-cli.js";
import { parseCli, parseJsonArg, STORE_OPTIONS } from "./wait-cli.js";

const USAGE = `Usage: flow fork [workflow file] <runId> <nodeId> [options]

Starts a new run from a task attempt of an existing run: the outputs of what finished before
that attempt are kept, the task and everything after it run again, on the same input or an
edited one, in the directory the original run worked in. The original run is not changed.
The workflow is the file given first, else --workflow, else the file the run recorded when it
started (flow up).

Options:
  --input <json>         The new run's input (default: the original run's input)
  --run-id <id>          Id of the new run (default: a new id)
  --root-dir <dir>       Where the new run works (default: where the original run worked)
  --iteration <n>        Loop iteration of the task (default 0)
  --attempt <n>          Which attempt (default the latest)
  --workflow <file>      The workflow file (and its store), instead of the one the run recorded
  --db <path>            SQLite store file, to find a run whose workflow file is recorded
  --json                 Print events as NDJSON

Example:
  flow fork 7f3a review --input '{"repo":"other"}'
  flow fork review.tsx 7f3a review`;

export const forkCommand: CliCommand = {
  name: "fork",
  summary: "Start a new run from a task attempt of a run (optionally with an edited input)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, ...ATTEMPT_OPTIONS, input: { type: "string" }, "run-id": { type: "string" }, "root-dir": { type: "string" } });
    const input = values.input === undefined ? undefined : parseJsonArg(values.input, "--input");
    if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input))) throw new UsageError("--input must be a JSON object.");
    const iteration = iterationArg(values.iteration);
    const attempt = attemptArg(values.attempt);
    return withRunWorkflow(io, values, "fork", positionals, ({ workflow, workflowPath, args: [runId, nodeId, extra] }) => {
      if (!runId || !nodeId) throw new UsageError("give a run id and a node id (the workflow file before them is optional).");
      if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
      return runWithProgress(io, values.json, (onProgress) =>
        forkRun(workflow, {
          runId,
          nodeId,
          workflowPath,
          onProgress,
          ...(input ? { input: input as Record<string, unknown> } : {}),
          ...(values["run-id"] ? { newRunId: values["run-id"] } : {}),
          ...(values["root-dir"] ? { rootDir: resolve(io.cwd, values["root-dir"]) } : {}),
          ...(iteration !== undefined ? { iteration } : {}),
          ...(attempt !== undefined ? { attempt } : {}),
        }),
      );
    });
  },
};
