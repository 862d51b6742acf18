/**
 * @module ui/workspace/team-rpc
 * The calls of a team Gateway's `workspace` extension the app makes (docs/multiplayer.md
 * "Members and roles"): which team workspaces the signed-in user belongs to (the switcher),
 * and the members view's list, add and remove. `POST /v1/rpc/ext.workspace.<method>` with the
 * workspace's bearer token; a refused call throws a `FlowError` with the Gateway's code.
 */
import { FlowError } from "../../core/errors.js";
import { rpcPath } from "../../core/api/wire/index.js";
import type { TeamWorkspaceRow, WorkspaceMethod, WorkspaceParams, WorkspaceResult } from "../../sync/index.js";

/** A team workspace the user belongs to (`ext.workspace.list`). */
export type TeamWorkspace = TeamWorkspaceRow;

/** A member row (`ext.workspace.members`). */
export type TeamMember = WorkspaceResult<"members">[number];

/**
 * Calls `ext.workspace.<method>` of the Gateway at `url`.
 * @example
 * const mine = await teamRpc("http://127.0.0.1:7331", "s3cret", "list", {});
 */
export async function teamRpc<M extends WorkspaceMethod>(url: string, token: string | undefined, method: M, params: WorkspaceParams<M>): Promise<WorkspaceResult<M>> {
  const res = await fetch(`${url}${rpcPath(`ext.workspace.${method}`)}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(params),
  });
  const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: WorkspaceResult<M>; error?: { code?: string; message?: string } } | null;
  if (body?.ok) return body.result as WorkspaceResult<M>;
  throw FlowError.from({ code: body?.error?.code ?? "GATEWAY_UNAVAILABLE", message: body?.error?.message ?? `ext.workspace.${method} answered HTTP ${res.status}.` }, "GATEWAY_UNAVAILABLE");
}

/**
 * The team workspaces the user belongs to on a Gateway: null when the Gateway serves no team
 * workspace (its `/health` features lack `team`), `[]` when it does and the user is no member;
 * throws GATEWAY_UNAVAILABLE when nothing answers. `tokenAccepted`, the token check run beside
 * `/health`, is awaited before the list is asked (a refused token would only add a 401).
 * @example
 * const teams = await findTeamWorkspaces("http://127.0.0.1:7331", "s3cret");
 */
export async function findTeamWorkspaces(url: string, token: string | undefined, tokenAccepted?: Promise<void>): Promise<TeamWorkspace[] | null> {
  // `/health` (open, no token) lists `team` among its features when the Gateway serves team
  // workspaces: a plain Gateway is not asked a method it does not know (a 404 in the console).
  const answer = await fetch(`${url}/health`).catch((cause: unknown) => {
    // No answer at all (offline, the Gateway down): the caller may open what it saw last.
    throw new FlowError("GATEWAY_UNAVAILABLE", `${url} did not answer (${String((cause as Error)?.message ?? cause)}).`, { url });
  });
  const health = (await answer.json().catch(() => null)) as { features?: unknown } | null;
  if (!Array.isArray(health?.features) || !health.features.includes("team")) return null;
  await tokenAccepted;
  try {
    return await teamRpc(url, token, "list", {});
  } catch (error) {
    const code = (error as FlowError).code;
    if (code === "UNAUTHORIZED") throw error;
    return null;
  }
}
