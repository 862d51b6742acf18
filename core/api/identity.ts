/**
 * @module core/api/identity
 * Who calls: `CallerIdentity`, the `Authenticate` port every auth mode implements (the simple
 * bearer token here; token maps, JWT and trusted proxies in node/server), and the
 * `RunAuthContext` a run launched by an authenticated caller gets as `ctx.auth`.
 * See docs/hosting.md "Authentication".
 */
import type { RunAuthContext } from "../engine/index.js";
import { FlowError } from "../errors.js";

/** The authenticated caller of a request or WebSocket connection. */
export interface CallerIdentity {
  userId?: string;
  role: string;
  /** Granted scopes; `*` grants every scope (docs/hosting.md scope table). */
  scopes: string[];
  tokenId?: string;
  /** What started things on this caller's behalf, recorded as `ctx.auth.triggeredBy` (e.g. `user:ana`, `token:api-key`, `cron:gateway`). */
  triggeredBy: string;
}

/** The Hono environment of the domain API: each request carries its caller (handler.ts sets it). */
export type DomainEnv = { Variables: { caller: CallerIdentity | null } };

/**
 * Authenticates a request. Resolves the caller, or `null` when no auth is configured
 * (anonymous callers may do everything); throws FlowError `UNAUTHORIZED` (401) when auth is
 * configured and the request does not pass it.
 * @example
 * const authenticate: Authenticate = async (req) => (req.headers.get("x-user") ? { role: "operator", scopes: ["*"], triggeredBy: "user:x" } : null);
 */
export type Authenticate = (req: Request) => Promise<CallerIdentity | null>;

/** Options of `bearerAuthenticate`. */
export interface BearerAuthOptions {
  /** The shared secret; when undefined or empty, auth is disabled (every caller is anonymous). */
  token: string | undefined;
  /** Also accept the token in the `x-flow-key` header (the serve app does). */
  acceptFlowKey?: boolean;
}

/**
 * The identity of a caller holding the shared API key.
 * @example
 * runAuthOf(API_KEY_IDENTITY, Date.now()).triggeredBy; // "token:api-key"
 */
export const API_KEY_IDENTITY: CallerIdentity = Object.freeze({ role: "operator", scopes: ["*"], tokenId: "api-key", triggeredBy: "token:api-key" }) as CallerIdentity;

/**
 * The simple bearer auth of `startServer` and `createServeApp`: `authorization: Bearer <token>`
 * (and `x-flow-key: <token>` when `acceptFlowKey`), compared in constant time. The caller gets
 * role `operator` and scopes `["*"]`.
 * @example
 * const authenticate = bearerAuthenticate({ token: process.env.FLOW_API_KEY, acceptFlowKey: true });
 */
export function bearerAuthenticate(opts: BearerAuthOptions): Authenticate {
  const expected = opts.token;
  if (!expected) return async () => null;
  return async (req) => {
    const presented = bearerTokenOf(req) ?? (opts.acceptFlowKey ? req.headers.get("x-flow-key") : null);
    if (presented === null) {
      throw new FlowError("UNAUTHORIZED", `This server requires a token: send "authorization: Bearer <token>"${opts.acceptFlowKey ? ' or "x-flow-key: <token>"' : ""} (the server's authToken or FLOW_API_KEY).`);
    }
    if (!constantTimeEqual(presented, expected)) throw new FlowError("UNAUTHORIZED", "The token sent is not this server's token (authToken or FLOW_API_KEY).");
    return API_KEY_IDENTITY;
  };
}

/**
 * The token of an `authorization: Bearer <token>` header, or null.
 * @example
 * bearerTokenOf(new Request("http://x", { headers: { authorization: "Bearer abc" } })); // "abc"
 */
export function bearerTokenOf(req: Request): string | null {
  const header = req.headers.get("authorization");
  const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return match ? match[1]!.trim() : null;
}

/**
 * Compares two strings in time that depends only on their lengths (no early exit on the first
 * differing character), so a token cannot be guessed byte by byte from response times.
 * @example
 * constantTimeEqual("abc", "abd"); // false
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * The `ctx.auth` of a run started by `caller` (null for anonymous callers).
 * @example
 * runAuthOf({ role: "operator", scopes: ["*"], triggeredBy: "user:ana" }, Date.now());
 * // { triggeredBy: "user:ana", role: "operator", scopes: ["*"], createdAt: "2026-..." }
 */
export function runAuthOf(caller: CallerIdentity | null, nowMs: number): RunAuthContext | null {
  if (!caller) return null;
  return { triggeredBy: caller.triggeredBy, role: caller.role, scopes: [...caller.scopes], createdAt: new Date(nowMs).toISOString() };
}
