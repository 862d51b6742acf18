/**
 * @module node/sync/workspace-rpc
 * The domain API of a team workspace's membership (docs/multiplayer.md "Adding members"), as
 * the Gateway's `workspace` extension namespace: `ext.workspace.list` (the workspaces the
 * caller belongs to: what the app's switcher shows), `ext.workspace.members`,
 * `ext.workspace.addMember` and `ext.workspace.removeMember` (admins only). Reachable over
 * `POST /v1/rpc/ext.workspace.<method>`, WebSocket `req` frames and
 * `GatewayClient.extensionRpc("workspace", ...)`.
 */
import { z } from "zod";
import { requireScope } from "../../core/api/index.js";
import { MAX_ID_LENGTH } from "../../core/api/internal.js";
import { FlowError } from "../../core/errors.js";
import type { GatewayExtension } from "../server/index.js";
import { type Membership, NOT_A_MEMBER, WORKSPACE_ADMIN_SCOPE, WORKSPACE_LIST_SCOPE, WORKSPACE_ROLES, type WorkspaceRole } from "../../sync/server.js";

/**
 * A workspace as the switcher lists it.
 * @example
 * const ws: TeamWorkspaceRow = { workspaceId: "acme", name: "Acme", role: "approve", syncPath: "/sync/acme" };
 */
export interface TeamWorkspaceRow {
  workspaceId: string;
  name: string;
  /** The caller's role (`operator` etc. for service callers, who are not narrowed). */
  role: string;
  /** The caller's user id (absent for service callers): the browser finds its own row in the `members` shape by it. */
  userId?: string;
  /** Where the workspace's shapes are served: `<syncPath>/<shape>` (the `electricBaseUrl` of a multiplayer mode is the origin + `/sync`). */
  syncPath: string;
}

function parse<T>(schema: z.ZodType<T>, params: unknown, method: string): T {
  const r = schema.safeParse(params ?? {});
  if (!r.success) throw new FlowError("INVALID_ARGUMENT", `Invalid params for ext.workspace.${method}: ${r.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ")}.`, { method: `ext.workspace.${method}` });
  return r.data;
}

const userId = z.string().min(1).max(MAX_ID_LENGTH);
const memberParams = z.object({ userId, role: z.enum(WORKSPACE_ROLES as [WorkspaceRole, ...WorkspaceRole[]]) });
const removeParams = z.object({ userId });

/**
 * The `workspace` extension of a team Gateway.
 * @example
 * gateway.extend("workspace", workspaceExtension(() => membership, "Acme", () => Date.now()));
 */
export function workspaceExtension(membership: () => Promise<Membership>, name: string, now: () => number): GatewayExtension {
  return {
    scope: WORKSPACE_LIST_SCOPE,
    rpc: {
      async list(_params, { caller }): Promise<TeamWorkspaceRow[]> {
        const m = await membership();
        if (caller?.role === NOT_A_MEMBER) return [];
        return [{ workspaceId: m.workspaceId, name, role: caller?.role ?? "anonymous", ...(caller?.userId !== undefined ? { userId: caller.userId } : {}), syncPath: `/sync/${m.workspaceId}` }];
      },
      async members(_params, { caller }) {
        requireScope(caller, "run:read", "ext.workspace.members");
        return (await membership()).list();
      },
      async addMember(params, { caller }) {
        requireScope(caller, WORKSPACE_ADMIN_SCOPE, "ext.workspace.addMember");
        const p = parse(memberParams, params, "addMember");
        return (await membership()).add(p.userId, p.role, caller?.userId ?? caller?.triggeredBy ?? null, now());
      },
      async removeMember(params, { caller }) {
        requireScope(caller, WORKSPACE_ADMIN_SCOPE, "ext.workspace.removeMember");
        const p = parse(removeParams, params, "removeMember");
        return { removed: await (await membership()).remove(p.userId) };
      },
    },
  };
}
