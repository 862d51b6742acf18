/**
 * @module node/cli/commands/resume
 * `flow resume <runId>`: continues a run in this terminal with the workflow file it recorded
 * (or `--workflow`): the same as `flow up <file> --run-id <runId> --resume`. See docs/cli.md
 * ("Controlling runs").
 */
import { FlowError } from "../../../core/errors.js";
import type { CliCommand } from "../command.js";
import { upCommand } from "./up.js";
import { oneRunId, withRun } from "./run-cli.js";
import { DB_HELP, parseCli, STORE_OPTIONS, WORKFLOW_HELP } from "./wait-cli.js";

const USAGE = `Usage: flow resume <runId> [options]

Continues a run (paused, parked, failed, rewound, or left running by a process that is gone)
in this terminal, with progress, in the directory the run recorded when it started. The
workflow is the file the run recorded, or --workflow.

Options:
  --force                Take the run even if another live process executes it
  --root-dir <dir>       Move the run to this directory (its recorded one is gone, ...)
  --quiet                Print only the result
${WORKFLOW_HELP}
${DB_HELP}

Example:
  flow pause 7f3a && flow resume 7f3a`;

export const resumeCommand: CliCommand = {
  name: "resume",
  summary: "Continue a run in this terminal (paused, parked, failed, or orphaned)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, { ...STORE_OPTIONS, force: { type: "boolean" }, "root-dir": { type: "string" }, quiet: { type: "boolean" } });
    const { runId, file } = await withRun(io, values, oneRunId(positionals), async ({ runId, workflowPath }) => ({ runId, file: workflowPath }));
    if (!file) {
      throw new FlowError("WORKFLOW_NOT_FOUND", `Run ${runId} recorded no workflow file this machine has; give it: flow resume ${runId} --workflow <file>.`, { runId });
    }
    const pass = [
      ...(values.force ? ["--force"] : []),
      ...(values["root-dir"] !== undefined ? ["--root-dir", values["root-dir"]] : []),
      ...(values.json ? ["--json"] : []),
      ...(values.quiet ? ["--quiet"] : []),
    ];
    return upCommand.run([file, "--run-id", runId, "--resume", ...pass], io);
  },
};
