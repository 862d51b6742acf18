/**
 * @module core/api/rpc-human
 * Human-in-the-loop RPC methods: submitApproval, submitSignal, listApprovals. A delivery is
 * durable before the call answers, a repeat is a no-op (`duplicate`), and the host then wakes
 * the run (resumes it when it was parked). See docs/hosting.md and docs/waiting.md.
 */
import { z } from "zod";
import { type DeliveryResult, listPendingApprovals, submitApproval, submitEvent, submitSignal } from "../engine/index.js";
import { approvalRowOf, type GatewayApprovalRow } from "./node-rows.js";
import type { GatewayHost } from "./host.js";
import { approvalRowSchema, deliveryResultSchema } from "./results.js";
import { signalDeliveryResultSchema } from "./results-changes.js";
import type { RpcMethod } from "./rpc-types.js";

const submitApprovalParams = z.object({
  runId: z.string().min(1),
  nodeId: z.string().min(1),
  iteration: z.number().int().min(0).optional(),
  decision: z.union([z.enum(["approve", "deny"]), z.object({ selected: z.string() }), z.object({ ranked: z.array(z.string()) })], {
    error: 'expected "approve", "deny", { "selected": <option key> } or { "ranked": [<every option key>] }',
  }),
  note: z.string().optional(),
  /** The `createdAtMs` of the approval row decided: refused with WAIT_RESET when a rewind or retry asked again since (a decision queued offline). */
  askedAtMs: z.number().int().min(0).optional(),
});

const submitSignalParams = z
  .object({
    /** The Signal id (or WaitForEvent event name with `kind: "event"`). */
    name: z.string().min(1),
    runId: z.string().min(1).optional(),
    correlationId: z.string().min(1).optional(),
    payload: z.unknown().optional(),
    /** Idempotency key: the same delivery id twice is a no-op. */
    deliveryId: z.string().min(1).optional(),
    kind: z.enum(["signal", "event"]).default("signal"),
  })
  .refine((p) => p.runId !== undefined || p.correlationId !== undefined, { message: "give runId or correlationId" });

/** Delivers through the store of the run's session when it runs here (wakes it at once). */
const dbFor = (host: GatewayHost, runId: string | undefined) => (runId ? host.activeRun(runId)?.db : undefined) ?? host.db;

async function wake(host: GatewayHost, runId: string | undefined): Promise<void> {
  // The delivery is durable already; a run that cannot be resumed here stays parked for
  // another host (or the scheduler's wake pass), so failures to wake are not the caller's.
  await host.wakeRuns(runId).catch(() => []);
}

const submitApprovalMethod: RpcMethod<z.infer<typeof submitApprovalParams>, DeliveryResult> = {
  scope: "approval:submit",
  params: submitApprovalParams,
  result: deliveryResultSchema,
  async handler(p, caller, host) {
    const result = await submitApproval(dbFor(host, p.runId), {
      runId: p.runId,
      nodeId: p.nodeId,
      ...(p.iteration !== undefined ? { iteration: p.iteration } : {}),
      decision: p.decision,
      ...(p.note !== undefined ? { note: p.note } : {}),
      ...(p.askedAtMs !== undefined ? { askedAtMs: p.askedAtMs } : {}),
      ...(caller ? { actor: { ...(caller.userId ? { userId: caller.userId } : {}), scopes: caller.scopes } } : {}),
    });
    if (result.status === "accepted") {
      host.changes.publish({ collection: "approvals", runId: p.runId, reason: "submitApproval" });
      await wake(host, p.runId);
    }
    return result;
  },
};

const submitSignalMethod: RpcMethod<z.infer<typeof submitSignalParams>, z.infer<typeof signalDeliveryResultSchema>> = {
  scope: "signal:submit",
  params: submitSignalParams,
  result: signalDeliveryResultSchema,
  async handler(p, _caller, host) {
    const input = {
      name: p.name,
      payload: p.payload ?? null,
      ...(p.runId ? { runId: p.runId } : {}),
      ...(p.correlationId ? { correlationId: p.correlationId } : {}),
      ...(p.deliveryId ? { deliveryId: p.deliveryId } : {}),
    };
    const result = await (p.kind === "event" ? submitEvent : submitSignal)(dbFor(host, p.runId), input);
    if (result.status === "accepted") await wake(host, p.runId);
    return result;
  },
};

/** Pending approvals and human tasks as the approvals collection holds them, keyed (core/api/node-rows.ts). */
const listApprovals: RpcMethod<{ runId?: string | undefined }, GatewayApprovalRow[]> = {
  scope: "run:read",
  params: z.object({ runId: z.string().min(1).optional() }),
  result: z.array(approvalRowSchema),
  handler: async (p, _caller, host) => (await listPendingApprovals(host.db, p.runId ? { runId: p.runId } : {})).map((a) => approvalRowOf(a) as GatewayApprovalRow),
};

export const HUMAN_METHODS = { submitApproval: submitApprovalMethod, submitSignal: submitSignalMethod, listApprovals } satisfies Record<string, RpcMethod<any, any>>;
