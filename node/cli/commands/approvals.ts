/**
 * @module node/cli/commands/approvals
 * `flow approvals [--run-id <id>]`: the approvals and human tasks waiting for a person, oldest
 * first, through `listPendingApprovals`. See docs/cli.md ("Waiting runs").
 */
import { listPendingApprovals, type PendingApproval } from "../../../core/engine/index.js";
import type { CliCommand } from "../command.js";
import { DB_HELP, parseCli, printer, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { splitFirstLine } from "../../../core/util/index.js";

const USAGE = `Usage: flow approvals [options]

Lists the approvals and human tasks waiting for a person, oldest first. Decide an approval
with \`flow approve\`; answer a human task with \`flow submit\`.

Options:
  --run-id <id>          Only this run's
${WORKFLOW_HELP}
${DB_HELP}`;

export const approvalsCommand: CliCommand = {
  name: "approvals",
  summary: "List pending approvals and human tasks",
  usage: USAGE,
  async run(argv, io) {
    const { values } = parseCli(argv, { ...STORE_OPTIONS, "run-id": { type: "string" } });
    return withStore(io, values, async (db) => {
      const pending = await listPendingApprovals(db, values["run-id"] ? { runId: values["run-id"] } : {});
      printer(io, values.json)(pending, pending.length ? pending.map(line).join("") : "No pending approvals or human tasks.\n");
      return 0;
    });
  },
};

/** `<runId>  <nodeId>[#iteration]  <what>  <question>  since <time>[  due <time>]` */
function line(p: PendingApproval): string {
  const req = p.request as { mode?: string; request?: { title?: string; summary?: string }; options?: Array<{ key: string }>; prompt?: string };
  const what = p.kind === "human" ? "human task" : req.mode && req.mode !== "approve" ? `approval (${req.mode}: ${(req.options ?? []).map((o) => o.key).join(", ")})` : "approval";
  // A human task's prompt of several lines (the text to work on, often) is named by its first line.
  const prompt = splitFirstLine(req.prompt ?? "");
  const question = p.kind === "human" ? prompt.first : [req.request?.title, req.request?.summary].filter(Boolean).join(": ");
  const more = p.kind === "human" && prompt.rest ? " (the prompt goes on: --json shows it whole)" : "";
  const node = `${p.nodeId}${p.iteration ? `#${p.iteration}` : ""}`;
  const due = p.deadlineMs === null ? "" : `  due ${new Date(p.deadlineMs).toISOString()}`;
  return `${p.runId}  ${node}  ${what}  ${JSON.stringify(question)}${more}  since ${new Date(p.createdAtMs).toISOString()}${due}\n`;
}
