/**
 * @module core/api/scopes
 * The scope each RPC method needs, and the check. A caller's `scopes` list grants scopes by
 * name; `*` grants all. Anonymous callers (no auth configured) may do everything.
 * The table is documented in docs/hosting.md "Scopes".
 */
import { FlowError } from "../errors.js";
import type { CallerIdentity } from "./identity.js";

/**
 * Every scope Flow checks. `*` (in a caller's list) grants all of them.
 * @example
 * const viewer: CallerIdentity = { role: "viewer", scopes: ["run:read", "memory:read"], triggeredBy: "user:vic" };
 */
export const SCOPES = ["run:read", "run:write", "run:admin", "approval:submit", "signal:submit", "cron:read", "cron:write", "memory:read"] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * The scope of each RPC method (SPEC.md "RPC methods by group"; docs/hosting.md "Scopes").
 * @example
 * METHOD_SCOPES.cancelRun; // "run:write"
 */
export const METHOD_SCOPES = {
  launchRun: "run:write",
  resumeRun: "run:write",
  pauseRun: "run:write",
  cancelRun: "run:write",
  hijackRun: "run:admin",
  rewindRun: "run:admin",
  forkRun: "run:write",
  submitApproval: "approval:submit",
  submitSignal: "signal:submit",
  listApprovals: "run:read",
  getRun: "run:read",
  listRuns: "run:read",
  listWorkflows: "run:read",
  getNodeOutput: "run:read",
  getNodeDiff: "run:read",
  getFileDiff: "run:read",
  getRunDiff: "run:read",
  whatHappened: "run:read",
  getRunUsage: "run:read",
  getTranscript: "run:read",
  listPrompts: "run:read",
  cronList: "cron:read",
  cronCreate: "cron:write",
  cronDelete: "cron:write",
  cronRun: "cron:write",
  streamRunEvents: "run:read",
  streamDevTools: "run:read",
} as const satisfies Record<string, Scope>;

/** The name of an RPC method. */
export type RpcMethodName = keyof typeof METHOD_SCOPES;

/**
 * True when `caller` holds `scope` (or `*`); anonymous callers (null) hold every scope.
 * @example
 * hasScope({ role: "viewer", scopes: ["run:read"], triggeredBy: "user:v" }, "run:write"); // false
 */
export function hasScope(caller: CallerIdentity | null, scope: string): boolean {
  return caller === null || caller.scopes.includes("*") || caller.scopes.includes(scope);
}

/**
 * Throws FlowError `FORBIDDEN` (403, `details.requiredScope`) unless `caller` holds `scope`.
 * `what` names the method or route in the message.
 * @example
 * requireScope(caller, "memory:read", "GET /v1/api/memory/facts");
 */
export function requireScope(caller: CallerIdentity | null, scope: string, what: string): void {
  if (hasScope(caller, scope)) return;
  const who = caller?.userId ?? caller?.tokenId ?? caller?.triggeredBy ?? "the caller";
  throw new FlowError("FORBIDDEN", `${what} needs the scope "${scope}", which ${who} (role ${caller?.role}) does not have; ask for a token or role that grants it.`, {
    requiredScope: scope,
    method: what,
    role: caller?.role ?? null,
  });
}

/**
 * Throws FlowError `FORBIDDEN` unless `caller` may call the RPC `method`; throws
 * `METHOD_NOT_FOUND` for a name that is no RPC method.
 * @example
 * checkScope({ role: "viewer", scopes: ["run:read"], triggeredBy: "user:v" }, "cancelRun"); // throws FORBIDDEN, requiredScope "run:write"
 */
export function checkScope(caller: CallerIdentity | null, method: string): void {
  const scope = (METHOD_SCOPES as Record<string, Scope>)[method];
  if (scope === undefined || !Object.hasOwn(METHOD_SCOPES, method)) throw methodNotFound(method);
  requireScope(caller, scope, method);
}

/**
 * The METHOD_NOT_FOUND error of an unknown method name.
 * @example
 * throw methodNotFound("launchRunn");
 */
export function methodNotFound(method: string): FlowError {
  return new FlowError("METHOD_NOT_FOUND", `There is no RPC method "${method}"; the methods are ${Object.keys(METHOD_SCOPES).join(", ")}.`, { method });
}
