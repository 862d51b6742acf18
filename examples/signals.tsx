/**
 * Waiting for the world (docs/waiting.md): an order. The run waits for the payment provider's
 * `payment.received` event (`WaitForEvent`, matched by correlation id `order-<orderId>`), then
 * for the withdrawal window (`Timer`), picks the parcel, and waits for the warehouse's
 * `shipped` signal (`Signal`, with the tracking number as data). If the warehouse says nothing
 * within `shipWithinMs`, the run goes on without it (`onTimeout: "continue"`) and escalates.
 *
 * Parked, from the command line (the store is `.flow/examples/signals.db`, or `$FLOW_EXAMPLE_DB`):
 *
 *   npx flow up examples/signals.tsx --run-id order-42 --input '{"orderId":"42","withdrawal":"5s"}'   # waiting-event
 *   npx flow signal payment.received --event --correlation-id order-42 --payload '{"amount":59.9,"method":"card"}' --db .flow/examples/signals.db
 *   npx flow signal shipped --run-id order-42 --payload '{"tracking":"JD0142"}' --db .flow/examples/signals.db   # early: kept until needed
 *   npx flow up examples/signals.tsx --run-id order-42 --resume     # waiting-timer (the withdrawal window)
 *   npx flow wake --db .flow/examples/signals.db                    # lists order-42 once the window has passed
 *   npx flow up examples/signals.tsx --run-id order-42 --resume     # finished
 *
 * Staying in one process instead (`stayWhileWaiting`): `npx tsx examples/signals.tsx` runs `main()`.
 */
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createFlow, runWorkflow, submitEvent, submitSignal } from "durable-flow";
import type { FlowApi, RunResult } from "durable-flow";

export const schemas = {
  input: z.object({
    orderId: z.string(),
    /** The withdrawal window after payment (a duration: "14d", "30s"; default "10m"). */
    withdrawal: z.string().optional(),
    /** How long the warehouse has to ship, in ms (default two days). */
    shipWithinMs: z.number().optional(),
  }),
  payment: z.object({ amount: z.number().positive(), method: z.string() }),
  step: z.object({ note: z.string() }),
  output: z.object({ orderId: z.string(), paid: z.number(), tracking: z.string().nullable(), status: z.enum(["shipped", "escalated"]) }),
};

/** The warehouse's `shipped` signal. */
export const shipped = z.object({ tracking: z.string().min(4) });

/** The order workflow on an api (the default export uses the example's own store). */
export function order(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, WaitForEvent, Timer, Signal, outputs } = api;
  return flow((ctx) => {
    const orderId = ctx.input.orderId;
    const paid = () => ctx.outputMaybe(outputs.payment, { nodeId: "paid" })?.amount ?? 0;
    return (
      <Workflow name="order">
        <WaitForEvent id="paid" event="payment.received" correlationId={`order-${orderId}`} output={outputs.payment} />
        <Timer id="withdrawal" duration={ctx.input.withdrawal ?? "10m"} />
        <Task id="pick" output={outputs.step}>
          {() => ({ note: `picked order ${orderId} (${paid()} EUR paid)` })}
        </Task>
        <Signal id="shipped" schema={shipped} timeoutMs={ctx.input.shipWithinMs ?? 2 * 86_400_000} onTimeout="continue">
          {(data) =>
            data ? (
              <Task id="close" output={outputs.output}>
                {() => ({ orderId, paid: paid(), tracking: data.tracking, status: "shipped" as const })}
              </Task>
            ) : (
              <Task id="escalate" output={outputs.output}>
                {() => ({ orderId, paid: paid(), tracking: null, status: "escalated" as const })}
              </Task>
            )
          }
        </Signal>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/signals.db" });
const workflow = order(api);
export default workflow;

/**
 * One process that stays with its run (`stayWhileWaiting`) while the payment provider and the
 * warehouse deliver from elsewhere (here: timers in the same process). Without `tracking`, the
 * warehouse never answers and the run escalates after `shipWithinMs`.
 */
export async function main(orderId = "42", tracking: string | null = "JD0142", shipWithinMs = 2_000): Promise<RunResult> {
  const runId = `order-${orderId}-${Date.now()}`;
  const running = runWorkflow(workflow, { runId, input: { orderId, withdrawal: "300ms", shipWithinMs }, stayWhileWaiting: true, waitPollMs: 50 });
  setTimeout(() => void submitEvent(api, { name: "payment.received", correlationId: `order-${orderId}`, payload: { amount: 59.9, method: "card" }, deliveryId: `psp-${runId}` }), 100);
  if (tracking) setTimeout(() => void submitSignal(api, { name: "shipped", runId, payload: { tracking }, deliveryId: `wh-${runId}` }), 600);
  const result = await running;
  console.log(result.status, result.output);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
