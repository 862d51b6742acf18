/**
 * @module core/components/waits
 * Components that wait for the world: Approval, ApprovalGate, HumanTask, Signal, WaitForEvent,
 * Timer. Each is a node the engine parks durably until its delivery arrives (see
 * docs/waiting.md). Deliveries: `submitApproval`, `submitHumanTask`, `submitSignal`.
 */
import { z } from "zod";
import { renderViewOf } from "../jsx/index.js";
import { createElement, type FlowElement, type FlowNode, useRenderCtx } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { AnyObjectSchema } from "../schema/index.js";
import type { OutputTarget, SchemaMap } from "./types.js";
import type { ApprovalGateProps, ApprovalProps, HumanTaskProps, SignalProps, TimerProps, WaitForEventProps } from "./wait-types.js";

/** Row of an Approval in `approve` mode (SPEC.md decision record). */
export const approvalDecisionSchema = z.object({
  approved: z.boolean(),
  note: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
});
/** Row of an Approval in `select` mode. */
export const approvalSelectionSchema = z.object({ selected: z.string(), notes: z.string().nullable() });
/** Row of an Approval in `rank` mode. */
export const approvalRankingSchema = z.object({ ranked: z.array(z.string()), notes: z.string().nullable() });

/**
 * Waits for a person's decision, stored as a row of `output`.
 * @example
 * <Approval id="ship" output={outputs.decision} request={{ title: "Ship v2?" }} allowedScopes={["release"]} />
 */
export function Approval<S extends SchemaMap, O extends OutputTarget<S>>(props: ApprovalProps<S, O>): FlowNode {
  return props.skipIf ? null : createElement(TAGS.approval, props);
}

/**
 * An approval asked only `when` true; false approves at once.
 * @example
 * <ApprovalGate id="risky" output={outputs.decision} request={{ title: "Drop the table?" }} when={plan.risk === "high"} />
 */
export function ApprovalGate<S extends SchemaMap, O extends OutputTarget<S>>(props: ApprovalGateProps<S, O>): FlowNode {
  const { when, ...rest } = props;
  return props.skipIf ? null : createElement(TAGS.approval, { ...rest, mode: "approve", autoApprove: { condition: !when, audit: "gate" } });
}

/**
 * Waits for a person to fill in a row of `output` (validated against its schema).
 * @example
 * <HumanTask id="triage" output={outputs.triage} prompt="Label this ticket" />
 */
export function HumanTask<S extends SchemaMap, O extends OutputTarget<S>>(props: HumanTaskProps<S, O>): FlowNode {
  return props.skipIf ? null : createElement(TAGS.human, props);
}

/**
 * Waits for a named signal (its `id`) with data matching `schema`, then renders its children
 * with that data.
 * @example
 * <Signal id="ci-done" schema={z.object({ green: z.boolean() })}>{(d) => d.green ? <Task .../> : null}</Signal>
 */
export function Signal<Schema extends AnyObjectSchema>(props: SignalProps<Schema>): FlowNode {
  if (props.skipIf) return null;
  const { children, ...rest } = props;
  const data = renderViewOf(useRenderCtx(), `Signal "${props.id}"`).waitData(props.id);
  const after = data.resolved && typeof children === "function" ? children(data.value as never) : null;
  return createElement(TAGS.signal, { ...rest, children: after });
}

/**
 * Waits for an event named `event`; its payload is the row stored in `output`.
 * @example
 * <WaitForEvent id="paid" event="invoice.paid" correlationId={ctx.input.invoiceId} output={outputs.payment} />
 */
export function WaitForEvent<S extends SchemaMap, O extends OutputTarget<S>>(props: WaitForEventProps<S, O>): FlowNode {
  return props.skipIf ? null : createElement(TAGS.event, props);
}

/**
 * Waits for a duration or until a time; survives restarts and fires once.
 * @example
 * <Timer id="cool-down" duration="10m" />
 */
export function Timer(props: TimerProps): FlowElement | null {
  return props.skipIf ? null : createElement(TAGS.timer, props);
}
