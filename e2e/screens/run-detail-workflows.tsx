/**
 * Dev workflows for the run detail view (docs/app-views-run.md): a run that fails after
 * retries, so the view's failure, retry and timeline (attempts, backoff) can be seen and
 * driven. The screenshot script (e2e/screens/run-detail.ts) registers them beside the app's
 * workflows.
 *
 * - `flaky`: `fetch` works, `charge` fails its first `failTimes` attempts (default 3) of each
 *   run with two retries 400 ms apart — so the run fails — then succeeds when retried;
 *   `notify` runs after it.
 * - `rollout`: builds, runs three checks in parallel, waits for an approval of `ship`, deploys;
 *   the check `e2e` stays in progress until the script calls `openRolloutGate()`, so the
 *   running run's screenshot and its live updates come when the script wants them, on a loaded
 *   machine too (no window of a task's work to catch).
 * - `order`: pays in a child run (`Subflow` of `payment`), then, while `rounds` (default 1) are
 *   left, continues as a new run (`ContinueAsNew`): the links between runs the header shows.
 */
import { z } from "zod";
import { approvalDecisionSchema, defineWorkflows, type WorkflowSet } from "durable-flow/core";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Attempts of `charge` so far, per run (the failure is per run, not per process). */
const tries = new Map<string, number>();
let openGate!: () => void;
const gate = new Promise<void>((resolve) => (openGate = resolve));
/** Lets `rollout`'s held check (and every later one) finish. */
export const openRolloutGate = (): void => openGate();

export const runDetailWorkflows = defineWorkflows(
  {
    input: z.object({
      failTimes: z.number().int().min(0).max(10).optional().describe("Attempts of charge that fail (default 3)"),
      rounds: z.number().int().min(0).max(10).optional().describe("Runs an order continues as (default 1)"),
    }),
    fetched: z.object({ items: z.number() }),
    charged: z.object({ receipt: z.string() }),
    notified: z.object({ sent: z.boolean() }),
    checked: z.object({ passed: z.number() }),
    decision: approvalDecisionSchema,
  },
  ({ flow, Workflow, Task, Sequence, Parallel, Approval, Subflow, ContinueAsNew, outputs }) => {
    const payment = flow(
      () => (
        <Workflow name="payment">
          <Task id="authorize" output={outputs.charged}>
            {{ receipt: "auth-ok" }}
          </Task>
        </Workflow>
      ),
      { output: outputs.charged },
    );
    return {
      payment,
      order: flow((ctx) => (
        <Workflow name="order">
          <Sequence>
            <Subflow id="pay" workflow={payment} input={{}} output={outputs.charged} retries={0} />
            {(ctx.input.rounds ?? 1) > 0 ? (
              <ContinueAsNew input={{ rounds: (ctx.input.rounds ?? 1) - 1 }} />
            ) : (
              <Task id="ship" output={outputs.notified}>
                {{ sent: true }}
              </Task>
            )}
          </Sequence>
        </Workflow>
      )),
      rollout: flow(() => (
        <Workflow name="rollout">
          <Sequence>
            <Task id="build" label="Build the bundle" output={outputs.fetched}>
              {async () => {
                await wait(400);
                return { items: 12 };
              }}
            </Task>
            <Parallel>
              <Task id="lint" label="Lint" output={outputs.checked}>
                {async () => {
                  await wait(300);
                  return { passed: 48 };
                }}
              </Task>
              <Task id="unit" label="Unit tests" output={outputs.checked}>
                {async () => {
                  await wait(700);
                  return { passed: 312 };
                }}
              </Task>
              <Task id="e2e" label="Browser tests" output={outputs.checked}>
                {async () => {
                  await gate;
                  return { passed: 27 };
                }}
              </Task>
            </Parallel>
            <Approval id="ship" output={outputs.decision} request={{ title: "Ship the rollout?", summary: "Lint, unit and browser tests passed." }} />
            <Task id="deploy" label="Deploy" output={outputs.notified}>
              {{ sent: true }}
            </Task>
          </Sequence>
        </Workflow>
      )),
      flaky: flow((ctx) => (
        <Workflow name="flaky">
          <Sequence>
            <Task id="fetch" label="Fetch the order" output={outputs.fetched}>
              {async () => {
                await wait(250);
                return { items: 3 };
              }}
            </Task>
            <Task id="charge" label="Charge the card" output={outputs.charged} retries={2} retryPolicy={{ backoff: "fixed", initialDelayMs: 400 }}>
              {async () => {
                const n = (tries.get(ctx.runId) ?? 0) + 1;
                tries.set(ctx.runId, n);
                await wait(200);
                if (n <= (ctx.input.failTimes ?? 3)) throw new Error(`The payment gateway answered 503 (attempt ${n}); try again later.`);
                return { receipt: `rcpt-${ctx.runId.slice(0, 6)}` };
              }}
            </Task>
            <Task id="notify" label="Email the receipt" output={outputs.notified}>
              {{ sent: true }}
            </Task>
          </Sequence>
        </Workflow>
      )),
    };
  },
) as unknown as WorkflowSet;
