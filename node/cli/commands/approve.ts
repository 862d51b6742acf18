/**
 * @module node/cli/commands/approve
 * `flow approve <runId> <nodeId>`: decides a waiting approval through `submitApproval`
 * (approve, `--deny`, `--select <key>` or `--rank k1,k2,...`). See docs/cli.md ("Waiting runs").
 */
import { submitApproval, type SubmitApprovalInput } from "../../../core/engine/index.js";
import { type CliCommand, UsageError } from "../command.js";
import { DB_HELP, iterationArg, parseCli, printer, resumeHint, STORE_OPTIONS, WORKFLOW_HELP, withStore } from "./wait-cli.js";
import { resolveRunId } from "./run-id.js";

const USAGE = `Usage: flow approve <runId> <nodeId> [options]

Decides an approval the run waits for: approves it, or denies it with --deny; a select-mode
approval takes --select <key>, a rank-mode one --rank <key,key,...>. Deciding the same way
twice is a no-op; deciding differently is APPROVAL_ALREADY_DECIDED.

Options:
  --deny                 Deny instead of approve
  --select <key>         Select-mode approvals: the chosen option
  --rank <k1,k2,...>     Rank-mode approvals: every option, best first
  --note <text>          Recorded with the decision
  --by <user>            Who decides (recorded as decidedBy; checked against allowedUsers)
  --scope <scope>        A scope you act with, checked against allowedScopes (repeatable)
  --iteration <n>        The iteration that waits (default: the pending one)
${WORKFLOW_HELP}
${DB_HELP}`;

export const approveCommand: CliCommand = {
  name: "approve",
  summary: "Approve, deny, select or rank a pending approval",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, {
      ...STORE_OPTIONS,
      deny: { type: "boolean" },
      select: { type: "string" },
      rank: { type: "string" },
      note: { type: "string" },
      by: { type: "string" },
      scope: { type: "string", multiple: true },
      iteration: { type: "string" },
    });
    const [given, nodeId, extra] = positionals;
    if (!given || !nodeId || extra !== undefined) throw new UsageError("give a run id and a node id.");
    const chosen = [values.deny, values.select !== undefined, values.rank !== undefined].filter(Boolean).length;
    if (chosen > 1) throw new UsageError("--deny, --select and --rank are different decisions; give one.");
    const decision: SubmitApprovalInput["decision"] =
      values.select !== undefined ? { selected: values.select }
      : values.rank !== undefined ? { ranked: values.rank.split(",").map((k) => k.trim()).filter(Boolean) }
      : values.deny ? "deny"
      : "approve";
    const iteration = iterationArg(values.iteration);
    return withStore(io, values, async (db) => {
      const runId = await resolveRunId(db, given);
      const result = await submitApproval(db, {
        runId,
        nodeId,
        decision,
        ...(iteration !== undefined ? { iteration } : {}),
        ...(values.note !== undefined ? { note: values.note } : {}),
        ...(values.by !== undefined ? { decidedBy: values.by } : {}),
        actor: { ...(values.by !== undefined ? { userId: values.by } : {}), scopes: values.scope ?? [] },
      });
      const verb = typeof decision === "string" ? (decision === "approve" ? "Approved" : "Denied") : "selected" in decision ? `Selected ${decision.selected} for` : `Ranked ${decision.ranked.join(" > ")} for`;
      const text =
        result.status === "duplicate"
          ? `"${nodeId}" of run ${runId} was already decided this way; nothing changed.\n`
          : `${verb} "${nodeId}" of run ${runId}${result.iteration ? ` (iteration ${result.iteration})` : ""}.\n${resumeHint(runId, values)}`;
      printer(io, values.json)(result, text);
      return 0;
    });
  },
};
