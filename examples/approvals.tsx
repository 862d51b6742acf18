/**
 * People in the loop (docs/waiting.md): an expense claim. The employee fills in the claim
 * (`HumanTask`, validated against its schema); a policy check decides whether a manager must
 * approve it (`ApprovalGate`: when not, it passes at once); finance picks how to pay it
 * (`Approval` in select mode, finance scope only). Each wait parks the run durably and the
 * process exits; a delivery from anywhere (code, CLI, Gateway) lets a resume go on.
 *
 * Tasks read the rows of waits inside their functions (`ctx.outputMaybe` when they run), and
 * the gate's `when` comes from the policy task's row, rendered after that task finished.
 *
 * From the command line (the store is `.flow/examples/approvals.db`, or `$FLOW_EXAMPLE_DB`):
 *
 *   npx flow up examples/approvals.tsx --run-id claim-1 --input '{"employee":"ana"}'      # parks: waiting-approval
 *   npx flow approvals --db .flow/examples/approvals.db                                       # claim-1 claim (human) ...
 *   npx flow submit claim-1 claim --value '{"amount":740,"category":"travel","description":"Berlin offsite"}' --by ana --db .flow/examples/approvals.db
 *   npx flow up examples/approvals.tsx --run-id claim-1 --resume                               # 740 > 500: parks on the manager
 *   npx flow approve claim-1 manager --by bob --note "ok" --db .flow/examples/approvals.db
 *   npx flow up examples/approvals.tsx --run-id claim-1 --resume                               # parks on finance
 *   npx flow approve claim-1 payout --select payroll --scope finance --by carla --db .flow/examples/approvals.db
 *   npx flow up examples/approvals.tsx --run-id claim-1 --resume                               # finished
 *
 * Or all of it from code, in one process: `npx tsx examples/approvals.tsx` (runs `main()`).
 */
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { approvalDecisionSchema, approvalSelectionSchema, createFlow, listPendingApprovals, runWorkflow, submitApproval, submitHumanTask } from "durable-flow";
import type { FlowApi, RunResult } from "durable-flow";

export const schemas = {
  input: z.object({
    employee: z.string(),
    /** Claims above this amount need a manager (default 500). */
    threshold: z.number().optional(),
  }),
  claim: z.object({
    amount: z.number().positive(),
    category: z.enum(["travel", "meals", "equipment"]),
    description: z.string().min(3),
  }),
  policy: z.object({ needsManager: z.boolean(), reason: z.string() }),
  decision: approvalDecisionSchema,
  payout: approvalSelectionSchema,
  output: z.object({ employee: z.string(), amount: z.number(), method: z.string(), approvedBy: z.string().nullable() }),
};

/** The expense-claim workflow on an api (the default export uses the example's own store). */
export function expenseClaim(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, HumanTask, ApprovalGate, Approval, outputs } = api;
  return flow((ctx) => {
    const claim = () => ctx.outputMaybe(outputs.claim, { nodeId: "claim" });
    const policy = ctx.outputMaybe(outputs.policy, { nodeId: "policy" });
    const threshold = ctx.input.threshold ?? 500;
    return (
      <Workflow name="expense-claim">
        <HumanTask id="claim" output={outputs.claim} prompt={`${ctx.input.employee}: enter the amount, category (travel, meals or equipment) and a description`} maxAttempts={3} />
        <Task id="policy" output={outputs.policy}>
          {() => {
            const c = claim();
            const over = (c?.amount ?? 0) > threshold;
            return { needsManager: over || c?.category === "equipment", reason: over ? `above ${threshold} EUR` : c?.category === "equipment" ? "equipment is inventoried" : "within policy" };
          }}
        </Task>
        <ApprovalGate
          id="manager"
          output={outputs.decision}
          when={policy?.needsManager === true}
          request={{ title: `Approve ${claim()?.amount ?? "?"} EUR of ${claim()?.category ?? "?"} for ${ctx.input.employee}?`, summary: `${claim()?.description ?? ""} (${policy?.reason ?? ""})` }}
          onDeny="fail"
        />
        <Approval
          id="payout"
          output={outputs.payout}
          mode="select"
          request={{ title: `Pay ${claim()?.amount ?? "?"} EUR to ${ctx.input.employee}` }}
          options={[
            { key: "payroll", label: "With the next payroll" },
            { key: "transfer", label: "Bank transfer now" },
          ]}
          allowedScopes={["finance"]}
        />
        <Task id="book" output={outputs.output}>
          {() => ({
            employee: ctx.input.employee,
            amount: claim()?.amount ?? 0,
            method: ctx.outputMaybe(outputs.payout, { nodeId: "payout" })?.selected ?? "",
            approvedBy: ctx.outputMaybe(outputs.decision, { nodeId: "manager" })?.decidedBy ?? null,
          })}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/approvals.db" });
const workflow = expenseClaim(api);
export default workflow;

/** The whole claim from code: each party delivers with the library functions the CLI calls. */
export async function main(employee = "ana"): Promise<RunResult> {
  let run = await runWorkflow(workflow, { input: { employee } });
  const step = async (deliver: () => Promise<unknown>) => {
    const [pending] = await listPendingApprovals(api, { runId: run.runId });
    console.log(`${run.status}: ${pending?.nodeId} (${pending?.kind})`);
    await deliver();
    run = await runWorkflow(workflow, { runId: run.runId, resume: true });
  };
  await step(() => submitHumanTask(api, { runId: run.runId, nodeId: "claim", value: { amount: 740, category: "travel", description: "Berlin offsite" }, submittedBy: employee }));
  if (run.status === "waiting-approval" && (await listPendingApprovals(api, { runId: run.runId }))[0]?.nodeId === "manager") {
    await step(() => submitApproval(api, { runId: run.runId, nodeId: "manager", decision: "approve", note: "ok", actor: { userId: "bob" } }));
  }
  await step(() => submitApproval(api, { runId: run.runId, nodeId: "payout", decision: { selected: "payroll" }, actor: { userId: "carla", scopes: ["finance"] } }));
  console.log(run.status, run.output);
  return run;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
