/**
 * @module node/server/webhooks/webhook-handler
 * `POST /webhooks/<key>` (SPEC.md Gateway endpoints, `GatewayWebhookConfig`). A delivery is
 * verified first (HMAC-SHA256 of the raw body, hex, constant-time; nothing is read into the
 * store before that), then acts: a signal to a waiting run and/or a new run.
 *
 * Redelivery is a no-op: the delivery id is `x-github-delivery` when sent, else the SHA-256
 * of the body. Both actions are idempotent by construction (the signal's delivery id and the
 * run id derive from it), and a row in `_flow_webhook_deliveries` records the answer, which a
 * redelivery gets back with `duplicate: true`. See docs/hosting.md "Webhooks".
 */
import { createHash } from "node:crypto";
import { ANNOTATIONS } from "../../../core/api/internal.js";
import type { GatewayHost } from "../../../core/api/index.js";
import type { RunAuthContext } from "../../../core/engine/index.js";
import { submitSignal } from "../../../core/engine/index.js";
import { FlowError, isFlowError } from "../../../core/errors.js";
import type { GatewayWebhookConfig } from "../gateway-options.js";
import { valueAtPath } from "./json-path.js";
import { verifyWebhookSignature } from "./signature.js";
import { TABLES } from "../../../core/protocol.js";

/**
 * What a webhook delivery answers (`result` of the envelope).
 * @example
 * // { "ok": true, "result": { "webhook": "deploy", "deliveryId": "72d3…", "duplicate": false, "runId": "webhook-deploy-…" } }
 */
export interface WebhookResult {
  webhook: string;
  deliveryId: string;
  /** True when this delivery was received before; nothing happened again. */
  duplicate: boolean;
  /** The run the delivery started. */
  runId?: string;
  /** The signal it delivered. */
  signal?: { name: string; runId?: string; correlationId?: string; deliveryId: string; status: "accepted" | "duplicate" };
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

/**
 * Handles a delivery whose raw body was read (within the body limit).
 * @example
 * const { runId, duplicate } = await handleWebhook(host, "deploy", config, req, body);
 */
export async function handleWebhook(host: GatewayHost, key: string, config: GatewayWebhookConfig, req: Request, body: Uint8Array): Promise<WebhookResult> {
  const header = config.signatureHeader ?? "x-hub-signature-256";
  if (!verifyWebhookSignature(config.secret, body, req.headers.get(header), config.signaturePrefix ?? "sha256=")) {
    throw new FlowError("WEBHOOK_SIGNATURE_INVALID", `The ${header} header of this delivery to /webhooks/${key} is missing or is not the HMAC-SHA256 of the body under the webhook's secret; nothing was recorded.`, {
      webhook: key,
      header,
    });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new FlowError("INVALID_ARGUMENT", `The body of this delivery to /webhooks/${key} is not JSON.`, { webhook: key });
  }
  const deliveryId = req.headers.get("x-github-delivery") ?? `sha256:${sha256(body)}`;
  const store = host.db.store;
  const [seen] = await store.query<{ result_json: string | null }>(`SELECT result_json FROM ${TABLES.webhookDeliveries} WHERE webhook_key = ? AND delivery_id = ?`, [key, deliveryId]);
  if (seen) return { ...(JSON.parse(seen.result_json ?? "{}") as WebhookResult), duplicate: true };

  const result: WebhookResult = { webhook: key, deliveryId, duplicate: false };
  if (config.signal) result.signal = await deliverSignal(host, key, config.signal, payload, deliveryId);
  if (config.run && config.run.enabled !== false) result.runId = await startRun(host, key, config.run.inputPath, payload, deliveryId);
  await store.execute(`INSERT INTO ${TABLES.webhookDeliveries} (webhook_key, delivery_id, result_json, received_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, [
    key,
    deliveryId,
    JSON.stringify(result),
    host.now(),
  ]);
  return result;
}

async function deliverSignal(host: GatewayHost, key: string, signal: NonNullable<GatewayWebhookConfig["signal"]>, payload: unknown, deliveryId: string): Promise<NonNullable<WebhookResult["signal"]>> {
  const runId = signal.runIdPath ? asId(valueAtPath(payload, signal.runIdPath)) : undefined;
  const correlationId = signal.correlationIdPath ? asId(valueAtPath(payload, signal.correlationIdPath)) : undefined;
  if (runId === undefined && correlationId === undefined) {
    throw new FlowError("INVALID_ARGUMENT", `Webhook ${key}: the payload has no run id at "${signal.runIdPath ?? ""}" and no correlation id at "${signal.correlationIdPath ?? ""}", so signal "${signal.name}" has no run to go to.`, {
      webhook: key,
      runIdPath: signal.runIdPath,
      correlationIdPath: signal.correlationIdPath,
    });
  }
  const data = signal.payloadPath ? valueAtPath(payload, signal.payloadPath) : payload;
  const signalDeliveryId = `webhook:${key}:${deliveryId}`;
  const db = (runId !== undefined ? host.activeRun(runId)?.db : undefined) ?? host.db;
  const delivered = await submitSignal(db, {
    name: signal.name,
    payload: data ?? null,
    deliveryId: signalDeliveryId,
    ...(runId !== undefined ? { runId } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
  });
  // A parked run continues now; one running in this process was woken by the delivery.
  await host.wakeRuns(runId);
  return { name: signal.name, deliveryId: signalDeliveryId, status: delivered.status, ...(runId !== undefined ? { runId } : {}), ...(correlationId !== undefined ? { correlationId } : {}) };
}

async function startRun(host: GatewayHost, key: string, inputPath: string | undefined, payload: unknown, deliveryId: string): Promise<string> {
  const input = inputPath ? valueAtPath(payload, inputPath) : payload;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new FlowError("INPUT_INVALID", `Webhook ${key}: the run input${inputPath ? ` at "${inputPath}"` : ""} must be a JSON object.`, { webhook: key, inputPath });
  }
  const runId = `webhook-${key}-${sha256(deliveryId).slice(0, 20)}`;
  const auth: RunAuthContext = { triggeredBy: `webhook:${key}`, role: "system", scopes: ["*"], createdAt: new Date(host.now()).toISOString() };
  try {
    await host.startRun({ workflowKey: key, runId, input: input as Record<string, unknown>, auth, annotations: { [ANNOTATIONS.webhook]: deliveryId } });
  } catch (error) {
    // The same delivery raced in (or an earlier attempt failed after starting it): the run exists.
    if (!isFlowError(error, "RUN_EXISTS")) throw error;
  }
  return runId;
}

function asId(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined;
}
