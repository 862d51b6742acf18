/**
 * @module sync/server
 * The second door of `sync/`: what a Gateway needs of team workspaces (membership and roles,
 * the authorizing shape proxy, the shapes' definitions, the preparation of a workspace's
 * store), without the browser's collections. `sync/index.ts` (`durable-flow/sync`) re-exports
 * all of it and adds `createTeamCollections`, which loads TanStack DB and the Electric client:
 * Node's entry and the Gateway import this door, so `import "durable-flow"` loads neither.
 */
export { Membership, memberFromRow, NOT_A_MEMBER, ROLE_SCOPES, teamAuthenticate, WORKSPACE_ADMIN_SCOPE, WORKSPACE_LIST_SCOPE, WORKSPACE_ROLES } from "./membership.js";
export type { MemberRow, WorkspaceMember, WorkspaceRole } from "./membership.js";
export { answerSync, SYNC_PREFIX } from "./sync-proxy.js";
export type { SyncProxyContext } from "./sync-proxy.js";
export { isTeamShape, shapesOfTable, shapeWhere, TEAM_SHAPES, WORKSPACE_COLUMN } from "./team-shapes.js";
export type { ShapeDefinition, TeamShapeName } from "./team-shapes.js";
export { assertWorkspaceId, prepareTeamWorkspace } from "./team-workspace.js";
export type { GatewayTeamOptions } from "./team-workspace.js";
export { WORKSPACE_METHODS } from "./workspace-methods.js";
export type { TeamWorkspaceRow, WorkspaceMethod, WorkspaceParams, WorkspaceResult } from "./workspace-methods.js";
