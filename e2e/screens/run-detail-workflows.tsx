/**
 * Dev workflows for the run detail view (docs/app-views-run.md): a run that fails after
 * retries, so the view's failure, retry and timeline (attempts, backoff) can be seen and
 * driven. The screenshot script (e2e/screens/run-detail.ts) registers them beside the app's
 * workflows.
 *
 * - `flaky`: `fetch` works, `charge` fails its first `failTimes` attempts (default 3) of each
 *   run with two retries 400 ms apart — so the run fails — then succeeds when retried;
 *   `notify` runs after it.
 * - `order`: pays in a child run (`Subflow` of `payment`), then, while `rounds` (default 1) are
 *   left, continues as a new run (`ContinueAsNew`): the links between runs the header shows.
 */
import { z } from "zod";
import { defineWorkflows, type WorkflowSet } from "durable-flow/core";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Attempts of `charge` so far, per run (the failure is per run, not per process). */
const tries = new Map<string, number>();

export const runDetailWorkflows = defineWorkflows(
  {
    input: z.object({
      failTimes: z.number().int().min(0).max(10).optional().describe("Attempts of charge that fail (default 3)"),
      rounds: z.number().int().min(0).max(10).optional().describe("Runs an order continues as (default 1)"),
    }),
    fetched: z.object({ items: z.number() }),
    charged: z.object({ receipt: z.string() }),
    notified: z.object({ sent: z.boolean() }),
  },
  ({ flow, Workflow, Task, Sequence, Subflow, ContinueAsNew, outputs }) => {
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
