/**
 * @module node/server/ws/frames
 * The Gateway's WebSocket frames (docs/hosting.md "WebSocket protocol"). Every frame is one
 * JSON object with a `type`.
 *
 * Client to gateway:
 * - `connect`  {protocol, token?, client?: {id?, version?, platform?}, subscribe?: [{runId, afterSeq?}]}
 * - `req`      {id, method, params?}: any RPC method; `streamRunEvents` {runId, afterSeq?}
 *              subscribes this socket, `unsubscribeRunEvents` {runId} stops it, `ext.<ns>.<key>`
 *              calls an extension.
 *
 * Gateway to client:
 * - `connected` {protocol, features, heartbeatMs, identity, connectionId}
 * - `res`      {id, ok: true, result} | {id, ok: false, error}
 * - `event`    {event, runId?, seq?, payload}: `run.event`, `run.gap_resync`, `run.heartbeat`,
 *              `run.error`, and `ext.data` / `ext.end` / `ext.error` (with `streamId`)
 * - `error`    {id?, error}: a frame the gateway could not take (FRAME_INVALID, ...)
 */
import type { EnvelopeError } from "../../../core/api/index.js";
import { FlowError } from "../../../core/errors.js";

/**
 * A run to subscribe to, from `afterSeq` (default 0: from the start).
 * @example
 * const sub: RunSubscriptionRequest = { runId: "r1", afterSeq: 12 };
 */
export interface RunSubscriptionRequest {
  runId: string;
  afterSeq?: number;
}

/**
 * The handshake, the first frame a client sends.
 * @example
 * ws.send(JSON.stringify({ type: "connect", protocol: 1, token: "s3cret", client: { id: "cli" }, subscribe: [{ runId: "r1" }] }));
 */
export interface ConnectFrame {
  type: "connect";
  protocol: number;
  token?: string;
  client?: { id?: string; version?: string; platform?: string };
  subscribe?: RunSubscriptionRequest[];
}

/**
 * An RPC call; answered by a `res` frame with the same id.
 * @example
 * ws.send(JSON.stringify({ type: "req", id: 1, method: "launchRun", params: { workflow: "review", input: {} } }));
 */
export interface RequestFrame {
  type: "req";
  id: string | number;
  method: string;
  params?: unknown;
}

/**
 * Every frame a client sends.
 * @example
 * const frame: ClientFrame = parseClientFrame(text);
 */
export type ClientFrame = ConnectFrame | RequestFrame;

/** The event names of run subscriptions (SPEC.md "Events"). */
export type RunEventName = "run.event" | "run.gap_resync" | "run.heartbeat" | "run.error";

/**
 * Every frame the gateway sends.
 * @example
 * // {"type":"event","event":"run.event","runId":"r1","seq":3,"payload":{"type":"TaskStarted",...}}
 */
export type ServerFrame =
  | { type: "connected"; protocol: number; features: string[]; heartbeatMs: number; identity: unknown; connectionId: string }
  | { type: "res"; id: string | number; ok: true; result: unknown }
  | { type: "res"; id: string | number; ok: false; error: EnvelopeError }
  | { type: "event"; event: RunEventName; runId: string; seq: number; payload: unknown }
  | { type: "event"; event: "ext.data" | "ext.end" | "ext.error"; streamId: string | number; payload: unknown }
  | { type: "error"; id?: string | number; error: EnvelopeError };

const invalid = (message: string, id?: string | number) => new FlowError("FRAME_INVALID", message, id === undefined ? undefined : { id });

/**
 * Parses one text frame; throws FRAME_INVALID (with `details.id` when the frame had one).
 * @example
 * parseClientFrame('{"type":"req","id":1,"method":"listRuns"}'); // { type: "req", id: 1, method: "listRuns" }
 */
export function parseClientFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("The frame is not JSON; send one JSON object per frame.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid("The frame must be a JSON object with a type.");
  const frame = value as Record<string, unknown>;
  const id = typeof frame.id === "string" || typeof frame.id === "number" ? frame.id : undefined;
  if (frame.type === "connect") {
    if (typeof frame.protocol !== "number") throw invalid("A connect frame needs a numeric protocol.");
    if (frame.token !== undefined && typeof frame.token !== "string") throw invalid("The connect frame's token must be a string.");
    if (frame.subscribe !== undefined && !(Array.isArray(frame.subscribe) && frame.subscribe.every(isSubscription))) {
      throw invalid("The connect frame's subscribe must be a list of {runId, afterSeq?}.");
    }
    return frame as unknown as ConnectFrame;
  }
  if (frame.type === "req") {
    if (id === undefined) throw invalid("A req frame needs an id (string or number).");
    if (typeof frame.method !== "string" || frame.method === "") throw invalid("A req frame needs a method.", id);
    return frame as unknown as RequestFrame;
  }
  throw invalid(`Unknown frame type ${JSON.stringify(frame.type)}; send connect or req.`, id);
}

/** True for `{runId: string, afterSeq?: non-negative integer}`. */
export function isSubscription(value: unknown): value is RunSubscriptionRequest {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.runId === "string" && v.runId !== "" && (v.afterSeq === undefined || (Number.isInteger(v.afterSeq) && (v.afterSeq as number) >= 0));
}
