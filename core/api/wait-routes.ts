/**
 * @module core/api/wait-routes
 * What a console needs to act on waiting runs beyond the RPC methods: `GET /v1/api/waits`
 * (the waits of runs, with what each asks for — a signal's name and payload schema — and, once
 * decided, the decision and who made it) and `POST /v1/api/human-tasks` (submits the row a
 * `HumanTask` waits for). docs/hosting.md "Domain API" documents both.
 */
import { z } from "zod";
import { submitHumanTask } from "../engine/index.js";
import { type Columns, waitFields } from "../engine/internal.js";
import type { WaitKind, WaitRow, WaitStatus } from "../engine/internal.js";
import { FlowError } from "../errors.js";
import { TABLES } from "../protocol.js";
import { readJsonBody } from "./body.js";
import type { RouteHandler } from "./api-routes.js";
import { API_ROUTES, routeLabel } from "./contract.js";
import { okResponse } from "./envelope.js";
import type { GatewayHost } from "./host.js";
import type { waitInfoSchema } from "./results-changes.js";

/**
 * A wait of a run, as `GET /v1/api/waits` answers it.
 * @example
 * const waits: WaitInfo[] = await data.api.listWaits({ runId, kind: "signal" });
 * waits[0]?.name; // the Signal id to deliver to
 */
export type WaitInfo = z.infer<typeof waitInfoSchema>;

const KINDS: readonly WaitKind[] = ["approval", "human", "signal", "event", "timer"];
const STATUSES: readonly WaitStatus[] = ["pending", "resolved", "settled"];

function toWait(r: WaitRow): WaitInfo {
  return waitFields(r as unknown as Columns) as WaitInfo;
}

/** `{ schema }`: the JSON Schema of the row a human task waits for, when this host serves its workflow. */
async function humanTaskSchema(host: GatewayHost, wait: WaitInfo): Promise<{ schema?: Record<string, unknown> }> {
  const run = await host.db.getRun(wait.runId);
  const key = run && host.workflowKeyOf(run);
  if (!key) return {};
  const { workflow } = await host.resolveWorkflow(key).catch(() => ({ workflow: undefined }));
  const schema = workflow?.schemaRegistry?.[String(wait.request.outputTable)]?.schema;
  return schema ? { schema: z.toJSONSchema(schema as z.ZodType, { unrepresentable: "any" }) as Record<string, unknown> } : {};
}

/** A query parameter that must be one of `allowed` (INVALID_ARGUMENT otherwise). */
function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined || value === "") return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FlowError("INVALID_ARGUMENT", `The query parameter ${name} must be one of ${allowed.join(", ")}, not "${value}".`, { [name]: value });
}

/**
 * The handlers of `listWaits` and `submitHumanTask` (core/api/contract.ts; api-routes.ts mounts them).
 * @example
 * const { listWaits } = waitRouteHandlers(host, 1_048_576);
 */
export function waitRouteHandlers(host: GatewayHost, maxBodyBytes: number): { listWaits: RouteHandler; submitHumanTask: RouteHandler } {
  const listWaits: RouteHandler = async (c) => {
    const status = c.req.query("status") === "any" ? undefined : (oneOf(c.req.query("status"), STATUSES, "status") ?? "pending");
    const filters: Array<[string, string | undefined]> = [
      ["run_id", c.req.query("runId") || undefined],
      ["node_id", c.req.query("nodeId") || undefined],
      ["kind", oneOf(c.req.query("kind"), KINDS, "kind")],
      ["status", status],
    ];
    const set = filters.filter((f): f is [string, string] => f[1] !== undefined);
    const where = set.length ? `WHERE ${set.map(([col]) => `${col} = ?`).join(" AND ")}` : "";
    const rows = await host.db.store.query<WaitRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} ${where} ORDER BY created_at_ms DESC, run_id, node_id, iteration LIMIT 1000`, set.map(([, v]) => v));
    const waits = rows.map(toWait);
    for (const w of waits) if (w.kind === "human" && w.status === "pending" && !w.request.schema) Object.assign(w.request, await humanTaskSchema(host, w));
    return okResponse(waits);
  };

  const submit: RouteHandler = async (c) => {
    const caller = c.get("caller");
    const body = (await readJsonBody(c.req.raw, maxBodyBytes)) as { runId?: unknown; nodeId?: unknown; iteration?: unknown; value?: unknown; askedAtMs?: unknown };
    const { runId, nodeId, iteration, value, askedAtMs } = body ?? {};
    if (typeof runId !== "string" || !runId || typeof nodeId !== "string" || !nodeId || typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new FlowError("INVALID_ARGUMENT", `${routeLabel(API_ROUTES.submitHumanTask)} needs { runId, nodeId, value } with value the row as a JSON object (e.g. { "label": "bug" }).`, { runId, nodeId });
    }
    if (iteration !== undefined && !(Number.isInteger(iteration) && (iteration as number) >= 0)) {
      throw new FlowError("INVALID_ARGUMENT", `iteration must be a non-negative integer, not ${JSON.stringify(iteration)}.`, { runId, nodeId });
    }
    if (askedAtMs !== undefined && !(Number.isInteger(askedAtMs) && (askedAtMs as number) >= 0)) {
      throw new FlowError("INVALID_ARGUMENT", `askedAtMs must be the createdAtMs of the wait answered (a non-negative integer), not ${JSON.stringify(askedAtMs)}.`, { runId, nodeId });
    }
    // Through the store of the run's session when it runs here, so it wakes at once.
    const db = host.activeRun(runId)?.db ?? host.db;
    const result = await submitHumanTask(db, {
      runId,
      nodeId,
      value: value as Record<string, unknown>,
      ...(iteration !== undefined ? { iteration: iteration as number } : {}),
      ...(askedAtMs !== undefined ? { askedAtMs: askedAtMs as number } : {}),
      ...(caller ? { actor: { ...(caller.userId ? { userId: caller.userId } : {}), scopes: caller.scopes } } : {}),
    });
    if (result.status === "accepted") {
      host.changes.publish({ collection: "approvals", runId, reason: "submitHumanTask" });
      // The delivery is durable; a run that cannot resume here stays parked for another host.
      await host.wakeRuns(runId).catch(() => []);
    }
    return okResponse(result);
  };
  return { listWaits, submitHumanTask: submit };
}
