/**
 * @module ui/workspace/team-rpc
 * The calls of a team Gateway's `workspace` extension the app makes (docs/multiplayer.md
 * "Members and roles"): which team workspaces the signed-in user belongs to (the switcher),
 * and the members view's list, add and remove. `POST /v1/rpc/ext.workspace.<method>` with the
 * workspace's bearer token; a refused call throws a `FlowError` with the Gateway's code.
 */
import { FlowError } from "../../core/errors.js";
import { rpcPath } from "../../core/api/internal.js";

/** A team workspace the user belongs to (`ext.workspace.list`). */
export interface TeamWorkspace {
  workspaceId: string;
  name: string;
  /** The user's role: `read`, `launch`, `approve` or `admin` (service callers: their auth role). */
  role: string;
  /** The user's id (absent for service callers): their row of the `members` shape. */
  userId?: string;
  /** Where its shapes are served (`/sync/<workspaceId>`). */
  syncPath: string;
}

/** A member row (`ext.workspace.members`). */
export interface TeamMember {
  workspaceId: string;
  userId: string;
  role: string;
  addedBy: string | null;
  addedAtMs: number;
}

/** The roles an admin may give, weakest first. */
export const TEAM_ROLES = ["read", "launch", "approve", "admin"] as const;

/**
 * Calls `ext.workspace.<method>` of the Gateway at `url`.
 * @example
 * const mine = await teamRpc<TeamWorkspace[]>("http://127.0.0.1:7331", "s3cret", "list");
 */
export async function teamRpc<T>(url: string, token: string | undefined, method: "list" | "members" | "addMember" | "removeMember", params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${url}${rpcPath(`ext.workspace.${method}`)}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(params),
  });
  const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: T; error?: { code?: string; message?: string } } | null;
  if (body?.ok) return body.result as T;
  throw FlowError.from({ code: body?.error?.code ?? "GATEWAY_UNAVAILABLE", message: body?.error?.message ?? `ext.workspace.${method} answered HTTP ${res.status}.` }, "GATEWAY_UNAVAILABLE");
}

/**
 * The team workspaces the user belongs to on a Gateway: null when the Gateway serves no team
 * workspace (its `/health` features lack `team`), `[]` when it does and the user is no member;
 * throws GATEWAY_UNAVAILABLE when nothing answers.
 * @example
 * const teams = await findTeamWorkspaces("http://127.0.0.1:7331", "s3cret");
 */
export async function findTeamWorkspaces(url: string, token: string | undefined): Promise<TeamWorkspace[] | null> {
  // `/health` (open, no token) lists `team` among its features when the Gateway serves team
  // workspaces: a plain Gateway is not asked a method it does not know (a 404 in the console).
  const answer = await fetch(`${url}/health`).catch((cause: unknown) => {
    // No answer at all (offline, the Gateway down): the caller may open what it saw last.
    throw new FlowError("GATEWAY_UNAVAILABLE", `${url} did not answer (${String((cause as Error)?.message ?? cause)}).`, { url });
  });
  const health = (await answer.json().catch(() => null)) as { features?: unknown } | null;
  if (!Array.isArray(health?.features) || !health.features.includes("team")) return null;
  try {
    return await teamRpc<TeamWorkspace[]>(url, token, "list");
  } catch (error) {
    const code = (error as FlowError).code;
    if (code === "UNAUTHORIZED") throw error;
    return null;
  }
}
