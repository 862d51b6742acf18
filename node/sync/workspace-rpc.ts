/**
 * @module node/sync/workspace-rpc
 * The domain API of a team workspace's membership (docs/multiplayer.md "Adding members"), as
 * the Gateway's `workspace` extension namespace: `ext.workspace.list` (the workspaces the
 * caller belongs to: what the app's switcher shows), `ext.workspace.members`,
 * `ext.workspace.addMember` and `ext.workspace.removeMember` (admins only). Reachable over
 * `POST /v1/rpc/ext.workspace.<method>`, WebSocket `req` frames and
 * `GatewayClient.extensionRpc("workspace", ...)`. Scopes, params and answers are those sync/workspace-methods.ts
 * declares (`WORKSPACE_METHODS`): the handlers parse with it and are typed by it.
 */
import { requireScope } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import type { GatewayExtension } from "../server/index.js";
import { type Membership, NOT_A_MEMBER, WORKSPACE_LIST_SCOPE, WORKSPACE_METHODS, type WorkspaceMethod, type WorkspaceParams, type WorkspaceResult } from "../../sync/server.js";

/** The params of `ext.workspace.<method>` as its declaration takes them; INVALID_ARGUMENT otherwise. */
function parse<M extends WorkspaceMethod>(method: M, params: unknown) {
  const r = WORKSPACE_METHODS[method].params.safeParse(params ?? {});
  if (!r.success) throw new FlowError("INVALID_ARGUMENT", `Invalid params for ext.workspace.${method}: ${r.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ")}.`, { method: `ext.workspace.${method}` });
  return r.data as WorkspaceParams<M>;
}

/**
 * The `workspace` extension of a team Gateway.
 * @example
 * gateway.extend("workspace", workspaceExtension(() => membership, "Acme", () => Date.now()));
 */
export function workspaceExtension(membership: () => Promise<Membership>, name: string, now: () => number): GatewayExtension {
  return {
    scope: WORKSPACE_LIST_SCOPE,
    rpc: {
      async list(_params, { caller }): Promise<WorkspaceResult<"list">> {
        const m = await membership();
        if (caller?.role === NOT_A_MEMBER) return [];
        return [{ workspaceId: m.workspaceId, name, role: caller?.role ?? "anonymous", ...(caller?.userId !== undefined ? { userId: caller.userId } : {}), syncPath: `/sync/${m.workspaceId}` }];
      },
      async members(_params, { caller }): Promise<WorkspaceResult<"members">> {
        requireScope(caller, WORKSPACE_METHODS.members.scope, "ext.workspace.members");
        return (await membership()).list();
      },
      async addMember(params, { caller }): Promise<WorkspaceResult<"addMember">> {
        requireScope(caller, WORKSPACE_METHODS.addMember.scope, "ext.workspace.addMember");
        const p = parse("addMember", params);
        return (await membership()).add(p.userId, p.role, caller?.userId ?? caller?.triggeredBy ?? null, now());
      },
      async removeMember(params, { caller }): Promise<WorkspaceResult<"removeMember">> {
        requireScope(caller, WORKSPACE_METHODS.removeMember.scope, "ext.workspace.removeMember");
        const p = parse("removeMember", params);
        return { removed: await (await membership()).remove(p.userId) };
      },
    },
  };
}
