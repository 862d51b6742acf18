/**
 * @module core/api/rpc-cron
 * Cron RPC methods: cronList, cronCreate, cronDelete, cronRun. They store cron rows
 * (core/api/cron-store.ts); the Gateway's scheduler fires them. Runs a cron starts act as
 * `CRON_IDENTITY` (role `system`, `triggeredBy` `cron:gateway`, scopes `["*"]`).
 */
import { z } from "zod";
import { assertInputFits } from "../engine/internal.js";
import { ANNOTATIONS } from "./contract.js";
import { type CronRow, cronStore, nextFireOf } from "./cron-store.js";
import { cronDeleteResultSchema, cronRowSchema, cronRunResultSchema } from "./results-data.js";
import type { GatewayHost } from "./host.js";
import { type CallerIdentity, runAuthOf } from "./identity.js";
import type { RpcMethod } from "./rpc-types.js";

/**
 * Who cron-fired runs act as (SPEC.md "register options").
 * @example
 * await host.startRun({ workflowKey: "nightly", input: {}, auth: runAuthOf(CRON_IDENTITY, Date.now()) });
 */
export const CRON_IDENTITY: CallerIdentity = Object.freeze({ role: "system", scopes: ["*"], triggeredBy: "cron:gateway" }) as CallerIdentity;

const cronCreateParams = z.object({
  /** Default: a fresh id. Creating with an existing id replaces that cron's schedule and input. */
  cronId: z.string().min(1).optional(),
  /** The key of a registered workflow. */
  workflow: z.string().min(1),
  /** A cron expression (five fields, or six with seconds first). */
  schedule: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
  enabled: z.boolean().default(true),
});

/**
 * Starts the run of a cron now and records the firing (the Gateway's scheduler calls this too,
 * after winning the firing with `cronStore.recordFiring`'s compare-and-set).
 * @example
 * const { runId } = await fireCron(host, await cronStore.require(host.db.store, "gateway:nightly"));
 */
export async function fireCron(host: GatewayHost, cron: CronRow): Promise<{ cronId: string; runId: string }> {
  const { runId } = await host.startRun({ workflowKey: cron.workflowKey, input: cron.input, auth: runAuthOf(CRON_IDENTITY, host.now()), annotations: { [ANNOTATIONS.cron]: cron.cronId } });
  return { cronId: cron.cronId, runId };
}

export const CRON_METHODS = {
  cronList: { scope: "cron:read", params: z.object({}), result: z.array(cronRowSchema), handler: (_p, _c, host) => cronStore.list(host.db.store) } as RpcMethod<Record<string, never>, CronRow[]>,
  cronCreate: {
    scope: "cron:write",
    params: cronCreateParams,
    result: cronRowSchema,
    async handler(p, caller, host) {
      // The input is checked now, as launchRun would check it, so no firing fails on it.
      const { workflow } = await host.resolveWorkflow(p.workflow);
      nextFireOf(p.schedule, host.now());
      assertInputFits(workflow.schemaRegistry?.input, p.input);
      const cronId = p.cronId ?? `cron:${host.db.binding.env.newId()}`;
      const row = await cronStore.upsert(host.db.store, { cronId, workflowKey: p.workflow, schedule: p.schedule, input: p.input, enabled: p.enabled, createdBy: caller?.triggeredBy ?? null }, host.now());
      host.changes.publish({ collection: "crons", reason: "cronCreate" });
      return row;
    },
  } as RpcMethod<z.infer<typeof cronCreateParams>, CronRow>,
  cronDelete: {
    scope: "cron:write",
    params: z.object({ cronId: z.string().min(1) }),
    result: cronDeleteResultSchema,
    async handler(p, _c, host) {
      await cronStore.require(host.db.store, p.cronId);
      await cronStore.delete(host.db.store, p.cronId);
      host.changes.publish({ collection: "crons", reason: "cronDelete" });
      return { cronId: p.cronId, deleted: true as const };
    },
  } as RpcMethod<{ cronId: string }, { cronId: string; deleted: true }>,
  cronRun: {
    scope: "cron:write",
    params: z.object({ cronId: z.string().min(1) }),
    result: cronRunResultSchema,
    async handler(p, _c, host) {
      const cron = await cronStore.require(host.db.store, p.cronId);
      const fired = await fireCron(host, cron);
      await cronStore.recordFiring(host.db.store, cron.cronId, { runId: fired.runId, firedAtMs: host.now(), nextFireAtMs: cron.nextFireAtMs });
      host.changes.publish({ collection: "crons", reason: "cronRun" });
      return fired;
    },
  } as RpcMethod<{ cronId: string }, { cronId: string; runId: string }>,
} satisfies Record<string, RpcMethod<any, any>>;
