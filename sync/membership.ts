/**
 * @module sync/membership
 * Who belongs to a team workspace, and what they may do there (docs/multiplayer.md
 * "Members and roles"). A member has one role; roles are cumulative:
 *
 *   read    — see runs, approvals, crons, memory (and the workspace's shapes)
 *   launch  — read + launch, cancel, pause and resume runs, send signals
 *   approve — launch + decide approvals and human tasks
 *   admin   — every scope + manage members
 *
 * A caller's scopes in the workspace are the scopes their auth grants (token, JWT, trusted
 * proxy) narrowed to their role, so a member's token may grant `*` and the role decides. A
 * caller with a user id and no role is `not-a-member`: it holds no scope but `workspace:list`
 * (it may ask which workspaces it is in, and gets none). Callers without a user id (service
 * tokens, or a Gateway without auth) are not narrowed: they are the deployment's own.
 */
import type { Authenticate, CallerIdentity } from "../core/api/index.js";
import { hasScope, SCOPES } from "../core/api/wire/index.js";
import { FlowError } from "../core/errors.js";
import type { StorePort } from "../core/store/index.js";
import { TABLES } from "../core/protocol.js";

/**
 * A member's role in a team workspace.
 * @example
 * const role: WorkspaceRole = "approve";
 */
export type WorkspaceRole = "read" | "launch" | "approve" | "admin";

/**
 * The roles, weakest first (each has the scopes of the ones before it).
 * @example
 * WORKSPACE_ROLES.indexOf("approve") > WORKSPACE_ROLES.indexOf("launch"); // true
 */
export const WORKSPACE_ROLES: readonly WorkspaceRole[] = ["read", "launch", "approve", "admin"];

/** The role of a caller who is not a member (no scopes but `workspace:list`). */
export const NOT_A_MEMBER = "not-a-member";

/** Listing one's workspaces; every authenticated caller of a team Gateway holds it. */
export const WORKSPACE_LIST_SCOPE = "workspace:list";
/** Managing members; only the `admin` role grants it. */
export const WORKSPACE_ADMIN_SCOPE = "workspace:admin";

const READ = ["run:read", "cron:read", "memory:read"];
const LAUNCH = [...READ, "run:write", "signal:submit", "cron:write"];

/**
 * The scopes of each role.
 * @example
 * ROLE_SCOPES.approve.includes("approval:submit"); // true
 */
export const ROLE_SCOPES: Readonly<Record<WorkspaceRole, readonly string[]>> = {
  read: [...READ, WORKSPACE_LIST_SCOPE],
  launch: [...LAUNCH, WORKSPACE_LIST_SCOPE],
  approve: [...LAUNCH, "approval:submit", WORKSPACE_LIST_SCOPE],
  admin: [...SCOPES, WORKSPACE_LIST_SCOPE, WORKSPACE_ADMIN_SCOPE],
};

/**
 * A member row (the `members` shape carries the same, snake_cased).
 * @example
 * const m: WorkspaceMember = { workspaceId: "acme", userId: "ana", role: "admin", addedBy: "owner", addedAtMs: Date.now() };
 */
export interface WorkspaceMember {
  workspaceId: string;
  userId: string;
  role: WorkspaceRole;
  addedBy: string | null;
  addedAtMs: number;
}

export interface MemberRow {
  [key: string]: unknown;
  workspace_id: string;
  user_id: string;
  role: string;
  added_by: string | null;
  added_at_ms: number | string;
}

/**
 * A `_flow_members` row (the store's, or the `members` shape's a browser kept) as a member.
 * @example
 * memberFromRow({ workspace_id: "acme", user_id: "bea", role: "approve", added_by: "ana", added_at_ms: "1700000000000" }).addedAtMs; // 1700000000000
 */
export const memberFromRow = (r: MemberRow): WorkspaceMember => ({ workspaceId: r.workspace_id, userId: r.user_id, role: r.role as WorkspaceRole, addedBy: r.added_by, addedAtMs: Number(r.added_at_ms) });

/**
 * Throws INVALID_ARGUMENT unless `role` is a workspace role.
 * @example
 * assertRole("launch");
 */
export function assertRole(role: unknown): asserts role is WorkspaceRole {
  if (!WORKSPACE_ROLES.includes(role as WorkspaceRole)) throw new FlowError("INVALID_ARGUMENT", `Role "${String(role)}" is not a workspace role; use one of ${WORKSPACE_ROLES.join(", ")}.`, { role });
}

/**
 * The members of one workspace, in its store (`_flow_members`, made by prepareTeamWorkspace).
 * @example
 * const members = new Membership(store, "acme", ["ana"]);
 * await members.add("bea", "approve", "ana", Date.now());
 */
export class Membership {
  constructor(
    private readonly store: StorePort,
    readonly workspaceId: string,
    private readonly owners: readonly string[] = [],
  ) {}

  /** The role of `userId` (owners are admins), or null for a non-member. */
  async roleOf(userId: string): Promise<WorkspaceRole | null> {
    if (this.owners.includes(userId)) return "admin";
    const [row] = await this.store.query<{ role: string }>(`SELECT role FROM ${TABLES.members} WHERE workspace_id = ? AND user_id = ?`, [this.workspaceId, userId]);
    return (row?.role as WorkspaceRole | undefined) ?? null;
  }

  async list(): Promise<WorkspaceMember[]> {
    return (await this.store.query<MemberRow>(`SELECT * FROM ${TABLES.members} WHERE workspace_id = ? ORDER BY added_at_ms, user_id`, [this.workspaceId])).map(memberFromRow);
  }

  /** Who holds which role, as one string that changes whenever a member is added, removed or changes role. */
  async fingerprint(): Promise<string> {
    const rows = await this.store.query<{ user_id: string; role: string }>(`SELECT user_id, role FROM ${TABLES.members} WHERE workspace_id = ? ORDER BY user_id`, [this.workspaceId]);
    return rows.map((r) => `${r.user_id}:${r.role}`).join("\n");
  }

  /** Adds `userId` with `role`, or changes the role of a member. */
  async add(userId: string, role: WorkspaceRole, addedBy: string | null, nowMs: number): Promise<WorkspaceMember> {
    if (!userId) throw new FlowError("INVALID_ARGUMENT", "A member needs a userId (the id the Gateway's auth gives the user).");
    assertRole(role);
    await this.store.execute(
      `INSERT INTO ${TABLES.members} (workspace_id, user_id, role, added_by, added_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`,
      [this.workspaceId, userId, role, addedBy, Math.trunc(nowMs)],
    );
    return { workspaceId: this.workspaceId, userId, role, addedBy, addedAtMs: Math.trunc(nowMs) };
  }

  /** Removes a member; true when there was one. */
  async remove(userId: string): Promise<boolean> {
    return (await this.store.execute(`DELETE FROM ${TABLES.members} WHERE workspace_id = ? AND user_id = ?`, [this.workspaceId, userId])) > 0;
  }
}

/**
 * The scopes of `caller` in a workspace where it has `role` (null: not a member).
 * @example
 * narrowToRole({ userId: "bea", role: "operator", scopes: ["*"], triggeredBy: "user:bea" }, "read").scopes; // run:read, cron:read, ...
 */
export function narrowToRole(caller: CallerIdentity, role: WorkspaceRole | null): CallerIdentity {
  if (role === null) return { ...caller, role: NOT_A_MEMBER, scopes: [WORKSPACE_LIST_SCOPE] };
  // `workspace:list` is not the token's to grant: every authenticated caller may list its workspaces.
  return { ...caller, role, scopes: ROLE_SCOPES[role].filter((s) => s === WORKSPACE_LIST_SCOPE || hasScope(caller, s)) };
}

/**
 * Wraps a Gateway's auth: callers with a user id get their role's scopes in the workspace.
 * @example
 * const authenticate = teamAuthenticate(gatewayAuthenticate(auth), async () => new Membership(store, "acme"));
 */
export function teamAuthenticate(base: Authenticate, membership: () => Promise<Membership>): Authenticate {
  return async (req) => {
    const caller = await base(req);
    if (!caller) return caller;
    if (caller.userId === undefined) return hasScope(caller, WORKSPACE_LIST_SCOPE) ? caller : { ...caller, scopes: [...caller.scopes, WORKSPACE_LIST_SCOPE] };
    return narrowToRole(caller, await (await membership()).roleOf(caller.userId));
  };
}
