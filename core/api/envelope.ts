/**
 * @module core/api/envelope
 * The one RPC envelope of every hosting surface (HTTP, WebSocket, server, serve app):
 * `{ ok: true, result }` or `{ ok: false, error: { code, message, requiredScope?, refresh?, details? } }`.
 * The HTTP status of an error comes from the code -> status map of core/errors.ts. See docs/hosting.md.
 */
import { FlowError, httpStatusOf } from "../errors.js";

/** The `error` object of a failed envelope. */
export interface EnvelopeError {
  code: string;
  message: string;
  /** The scope the caller lacks (FORBIDDEN, APPROVAL_FORBIDDEN). */
  requiredScope?: string;
  /** True when the client should refresh its credentials and retry (an expired token). */
  refresh?: boolean;
  details?: Record<string, unknown>;
}

/** A successful call. */
export interface OkEnvelope<T = unknown> {
  ok: true;
  result: T;
}

/** A failed call. */
export interface ErrorEnvelope {
  ok: false;
  error: EnvelopeError;
}

/** What every RPC answers. */
export type RpcEnvelope<T = unknown> = OkEnvelope<T> | ErrorEnvelope;

/**
 * Wraps a result.
 * @example
 * okEnvelope({ runId: "r1" }); // { ok: true, result: { runId: "r1" } }
 */
export function okEnvelope<T>(result: T): OkEnvelope<T> {
  return { ok: true, result };
}

/**
 * The failed envelope of any thrown value (non-FlowErrors become `INTERNAL`). `requiredScope`
 * and `refresh` are lifted from `details` to the top of the error object.
 * @example
 * errorEnvelope(new FlowError("FORBIDDEN", "needs run:write", { requiredScope: "run:write" }));
 * // { ok: false, error: { code: "FORBIDDEN", message: "needs run:write", requiredScope: "run:write", details: {...} } }
 */
export function errorEnvelope(err: unknown): ErrorEnvelope {
  const e = FlowError.from(err);
  const error: EnvelopeError = { code: e.code, message: e.message };
  const requiredScope = e.details?.requiredScope;
  if (typeof requiredScope === "string") error.requiredScope = requiredScope;
  if (e.details?.refresh === true) error.refresh = true;
  if (e.details !== undefined) error.details = e.details;
  return { ok: false, error };
}

/**
 * A JSON response.
 * @example
 * return jsonResponse({ ok: true, result: 1 }, 200);
 */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/**
 * The HTTP response of a success: status 200 with the ok envelope.
 * @example
 * return okResponse({ runId });
 */
export function okResponse(result: unknown, status = 200): Response {
  return jsonResponse(okEnvelope(result), status);
}

/**
 * The HTTP response of a thrown value: the error envelope with the status its code maps to
 * (`httpStatusOf`; unknown codes 500). A 401 also carries `www-authenticate: Bearer`.
 * @example
 * try { ... } catch (e) { return errorResponse(e); } // e.g. 413 for PAYLOAD_TOO_LARGE
 */
export function errorResponse(err: unknown): Response {
  const envelope = errorEnvelope(err);
  const status = httpStatusOf(envelope.error.code);
  return jsonResponse(envelope, status, status === 401 ? { "www-authenticate": "Bearer" } : {});
}
