/**
 * @module sync/workspace-methods
 * The `workspace` extension of a team Gateway declared once (docs/multiplayer.md "Members and
 * roles"): each method's scope, params and result schemas. The Gateway's handlers
 * (node/sync/workspace-rpc.ts) parse params with them and the app's calls
 * (ui/workspace/team-rpc.ts) take their types from them, so the two sides cannot drift; a test
 * parses a real team Gateway's answers with the result schemas (node/sync/team-gateway.test.tsx).
 * Reached over `POST /v1/rpc/ext.workspace.<method>`, as the core contract's routes are
 * (core/api/contract.ts), whose table does not list extensions.
 */
import { z } from "zod";
import { MAX_ID_LENGTH } from "../core/api/wire/index.js";
import { WORKSPACE_ADMIN_SCOPE, WORKSPACE_LIST_SCOPE, WORKSPACE_ROLES, type WorkspaceRole } from "./membership.js";

const role = z.enum(WORKSPACE_ROLES as [WorkspaceRole, ...WorkspaceRole[]]);
const userId = z.string().min(1).max(MAX_ID_LENGTH);
/** What a membership write answers beside its row: the txids that confirm it on the `members` shape. */
const txids = z.record(z.string(), z.array(z.number())).optional();

const teamWorkspace = z.strictObject({
  workspaceId: z.string(),
  name: z.string(),
  /** The caller's role (`operator` etc. for service callers, who are not narrowed). */
  role: z.string(),
  /** The caller's user id (absent for service callers): their row of the `members` shape. */
  userId: z.string().optional(),
  /** Where the workspace's shapes are served: `<syncPath>/<shape>`. */
  syncPath: z.string(),
});

const member = z.strictObject({ workspaceId: z.string(), userId: z.string(), role, addedBy: z.string().nullable(), addedAtMs: z.number() });

/**
 * The methods of the `workspace` extension, by name.
 * @example
 * WORKSPACE_METHODS.addMember.params.parse({ userId: "bea", role: "approve" });
 */
export const WORKSPACE_METHODS = {
  /** The workspaces the caller belongs to (the app's switcher); `[]` for a non-member. */
  list: { scope: WORKSPACE_LIST_SCOPE, params: z.object({}), result: z.array(teamWorkspace) },
  /** The workspace's members. */
  members: { scope: "run:read", params: z.object({}), result: z.array(member) },
  /** Adds a member or changes their role (admins only). */
  addMember: { scope: WORKSPACE_ADMIN_SCOPE, params: z.object({ userId, role }), result: member.extend({ txids }) },
  /** Removes a member (admins only). */
  removeMember: { scope: WORKSPACE_ADMIN_SCOPE, params: z.object({ userId }), result: z.strictObject({ removed: z.boolean(), txids }) },
} as const;

/** A method of the `workspace` extension. */
export type WorkspaceMethod = keyof typeof WORKSPACE_METHODS;
/** What `ext.workspace.<M>` takes. */
export type WorkspaceParams<M extends WorkspaceMethod> = z.input<(typeof WORKSPACE_METHODS)[M]["params"]>;
/** What `ext.workspace.<M>` answers. */
export type WorkspaceResult<M extends WorkspaceMethod> = z.output<(typeof WORKSPACE_METHODS)[M]["result"]>;
/** A team workspace as the switcher lists it (`ext.workspace.list`). */
export type TeamWorkspaceRow = z.output<typeof teamWorkspace>;
