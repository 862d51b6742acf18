/**
 * Recovering from failures (docs/recovery.md): a checkout. A `Saga` reserves the stock, charges
 * the card and books the courier; when a step fails for good, the steps that completed are
 * undone in reverse order (refund, then release the stock) and the saga fails. Around it, a
 * `TryCatchFinally` catches that failure to tell the customer, and its `finally` always
 * unlocks the cart. The run then finishes with a receipt that says what happened.
 *
 *   npx flow up examples/recovery.tsx --input '{"orderId":"A-17","amount":120}'                       # paid
 *   npx flow up examples/recovery.tsx --input '{"orderId":"A-18","amount":120,"failAt":"courier"}'   # compensated
 *
 * `failAt` makes that step's service fail (no retries), to show the compensations. The store is
 * `.flow/examples/recovery.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { createFlow } from "durable-flow";
import type { FlowApi } from "durable-flow";

export const schemas = {
  input: z.object({
    orderId: z.string(),
    amount: z.number().positive(),
    failAt: z.enum(["stock", "card", "courier"]).optional(),
  }),
  /** What a step did (or undid) in an outside system. */
  ledger: z.object({ action: z.string(), ref: z.string() }),
  notice: z.object({ to: z.string(), text: z.string() }),
  output: z.object({ orderId: z.string(), status: z.enum(["paid", "cancelled"]), actions: z.array(z.string()) }),
};

/** The checkout workflow on an api (the default export uses the example's own store). */
export function checkout(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, Saga, SagaStep, TryCatchFinally, outputs } = api;
  return flow((ctx) => {
    const { orderId, amount, failAt } = ctx.input;
    /** A call to an outside service: fails for good (retries={0}) when the input says so. */
    const call = (id: string, action: string, fails = false) => (
      <Task id={id} output={outputs.ledger} retries={0}>
        {() => {
          if (fails) throw new Error(`${action} is unavailable for order ${orderId}`);
          return { action, ref: `${orderId}/${id}` };
        }}
      </Task>
    );
    return (
      <Workflow name="checkout">
        <TryCatchFinally
          id="checkout"
          try={
            <Saga id="order" onFailure="compensate-and-fail">
              <SagaStep id="stock" compensation={call("release-stock", "release 1 item")}>
                {call("reserve-stock", "reserve 1 item", failAt === "stock")}
              </SagaStep>
              <SagaStep id="card" compensation={call("refund-card", `refund ${amount} EUR`)}>
                {call("charge-card", `charge ${amount} EUR`, failAt === "card")}
              </SagaStep>
              <SagaStep id="courier" compensation={call("cancel-courier", "cancel the pickup")}>
                {call("book-courier", "book a pickup", failAt === "courier")}
              </SagaStep>
            </Saga>
          }
          catch={(error) => (
            <Task id="apologize" output={outputs.notice}>
              {{ to: `customer of ${orderId}`, text: `We could not complete your order, any charge has been refunded. (${error.message})` }}
            </Task>
          )}
          finally={
            <Task id="unlock-cart" output={outputs.ledger}>
              {{ action: "unlock the cart", ref: `${orderId}/cart` }}
            </Task>
          }
        />
        <Task id="receipt" output={outputs.output}>
          {() => {
            const rows = ctx.outputs.ledger;
            return { orderId, status: rows.some((r) => r.nodeId === "book-courier") ? ("paid" as const) : ("cancelled" as const), actions: rows.map((r) => r.action) };
          }}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/recovery.db" });
export default checkout(api);
