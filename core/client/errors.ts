/**
 * @module core/client/errors
 * The errors of the gateway client (SPEC.md "Gateway client"): `GatewayRpcError` (a FlowError
 * carrying the RPC method, the gateway's code, HTTP status, required scope and refresh flag),
 * the rule that tells "nothing speaking the protocol answered" from real gateway errors, and
 * the decoding of an HTTP answer into a result or an error. See docs/client.md.
 */
import type { EnvelopeError, RpcEnvelope } from "../api/index.js";
import { FlowError, type FlowErrorCode, httpStatusOf } from "../errors.js";

/**
 * What a GatewayRpcError is built from.
 * @example
 * new GatewayRpcError({ method: "getRun", code: "RUN_NOT_FOUND", message: "no run r9", status: 404 });
 */
export interface GatewayRpcErrorInit {
  /** The RPC method (or route) called; `websocket` for a malformed socket frame. */
  method: string;
  /** The gateway's code, or HTTP_ERROR, INVALID_GATEWAY_RESPONSE, GATEWAY_UNAVAILABLE. */
  code: string;
  message: string;
  /** The HTTP status of the answer (absent over WebSocket and when nothing answered). */
  status?: number;
  requiredScope?: string;
  refresh?: boolean;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * A failed gateway call. `code` is the gateway's code (`RUN_NOT_FOUND`, `FORBIDDEN`, ...) or one
 * of the client's: `HTTP_ERROR` (a non-2xx answer that is no envelope), `INVALID_GATEWAY_RESPONSE`
 * (a 2xx answer that is no envelope, or a malformed frame), `GATEWAY_UNAVAILABLE` (nothing
 * answered). `status` is the HTTP status of the answer; over WebSocket, the status the code
 * maps to.
 * @example
 * try { await client.cancelRun({ runId }); }
 * catch (e) { if (e instanceof GatewayRpcError && e.code === "FORBIDDEN") console.log(`ask for ${e.requiredScope}`); }
 */
export class GatewayRpcError extends FlowError {
  readonly method: string;
  readonly requiredScope?: string;
  readonly refresh?: boolean;
  private readonly httpStatus: number | undefined;

  constructor(init: GatewayRpcErrorInit) {
    // The gateway may answer codes of a newer build; they are kept verbatim.
    super(init.code as FlowErrorCode, init.message, init.details, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "GatewayRpcError";
    this.method = init.method;
    this.httpStatus = init.status;
    if (init.requiredScope !== undefined) this.requiredScope = init.requiredScope;
    if (init.refresh === true) this.refresh = true;
  }

  /** The HTTP status of the answer (over WebSocket or without an answer: the status of the code). */
  override get status(): number {
    return this.httpStatus ?? httpStatusOf(this.code);
  }

  /** True when the error came with an HTTP answer. */
  get answeredOverHttp(): boolean {
    return this.httpStatus !== undefined;
  }
}

/**
 * True when nothing speaking the gateway protocol answered: a network-level rejection, or a 2xx
 * answer whose body is not an envelope with an `ok` flag (a dev server's HTML page, a captive
 * portal). Real gateway errors and non-2xx HTTP failures are never "unavailable".
 * @example
 * try { await client.listRuns({}); } catch (e) { if (isGatewayUnavailableError(e)) showOfflineBadge(); else throw e; }
 */
export function isGatewayUnavailableError(error: unknown): boolean {
  if (!(error instanceof FlowError)) return false;
  if (error.code === "GATEWAY_UNAVAILABLE") return true;
  if (error instanceof GatewayRpcError && error.code === "INVALID_GATEWAY_RESPONSE" && error.answeredOverHttp) return error.status >= 200 && error.status < 300;
  return false;
}

/**
 * The GatewayRpcError of a failed envelope.
 * @example
 * throw envelopeError("cancelRun", { code: "RUN_NOT_FOUND", message: "no run r9" }, 404);
 */
export function envelopeError(method: string, error: EnvelopeError, status?: number): GatewayRpcError {
  return new GatewayRpcError({
    method,
    code: error.code,
    message: error.message,
    ...(status !== undefined ? { status } : {}),
    ...(error.requiredScope !== undefined ? { requiredScope: error.requiredScope } : {}),
    ...(error.refresh === true ? { refresh: true } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
  });
}

/**
 * True for `{ ok: true, result }` or `{ ok: false, error: { code, message } }`.
 * @example
 * isEnvelope(JSON.parse(text)); // false for "<html>..."
 */
export function isEnvelope(value: unknown): value is RpcEnvelope {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.ok === true) return true;
  if (v.ok !== false || typeof v.error !== "object" || v.error === null) return false;
  const e = v.error as Record<string, unknown>;
  return typeof e.code === "string" && typeof e.message === "string";
}

/**
 * The GATEWAY_UNAVAILABLE error of a request that got no answer (refused, reset, DNS).
 * @example
 * try { res = await fetch(url); } catch (cause) { throw unavailableError("listRuns", url, cause); }
 */
export function unavailableError(method: string, url: string, cause: unknown): GatewayRpcError {
  return new GatewayRpcError({ method, code: "GATEWAY_UNAVAILABLE", message: `Nothing answered ${method} at ${url}; check that the gateway runs (flow serve) and that the base URL is right.`, details: { url }, cause });
}

/**
 * Reads an HTTP answer of an RPC call or API route as an envelope: the result, or a
 * GatewayRpcError (the gateway's error; HTTP_ERROR for a non-2xx answer without an envelope;
 * INVALID_GATEWAY_RESPONSE for a 2xx answer without one).
 * @example
 * const envelope = await readEnvelope("listRuns", await fetch(`${base}/v1/rpc/listRuns`, init));
 */
export async function readEnvelope(method: string, res: Response): Promise<RpcEnvelope> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isEnvelope(body)) return body;
  const snippet = text.slice(0, 120).replace(/\s+/g, " ");
  const what = `${res.headers.get("content-type") ?? "no content type"}: ${JSON.stringify(snippet)}`;
  if (!res.ok) return { ok: false, error: { code: "HTTP_ERROR", message: `${method} answered HTTP ${res.status} without an envelope (${what}).`, details: { status: res.status } } };
  throw new GatewayRpcError({ method, code: "INVALID_GATEWAY_RESPONSE", status: res.status, message: `${method} answered HTTP ${res.status} with something that is not a gateway envelope (${what}); is the base URL a Flow gateway?`, details: { status: res.status } });
}
