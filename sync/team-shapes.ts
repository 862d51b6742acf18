/**
 * @module sync/team-shapes
 * The Electric shapes a team workspace serves (docs/multiplayer.md "Shapes"): one shape per
 * table a browser reads, filtered by `workspace_id = $1` (Electric's fast path), with the
 * columns a console needs and nothing else (no run configuration, no claim owner, no
 * heartbeats). The Gateway's proxy (sync/sync-proxy.ts) sets exactly these
 * definitions server-side; a client names a shape, never a table, a where or columns.
 * Runtime-agnostic: the browser's multiplayer collections (sync/source-multiplayer.ts)
 * name the same shapes.
 */
import { TABLES } from "../core/protocol.js";

/**
 * A shape a team workspace serves.
 * @example
 * const runs: ShapeDefinition = TEAM_SHAPES.runs;
 */
export interface ShapeDefinition {
  /** The table (unqualified: the Gateway's store names its schema). */
  table: string;
  /** Extra filter ANDed after `workspace_id = $1` (fixed text, no client input). */
  filter?: string;
  /** The columns served; they include the primary key and `workspace_id`. */
  columns: readonly string[];
}

/** The column every synced table carries (docs/multiplayer.md "workspace_id"). */
export const WORKSPACE_COLUMN = "workspace_id";

/**
 * The shapes by name: what `/sync/<workspace>/<shape>` serves.
 * @example
 * Object.keys(TEAM_SHAPES); // ["runs", "nodes", "approvals", "members"]
 */
export const TEAM_SHAPES = {
  runs: {
    table: TABLES.runs,
    columns: [
      "run_id",
      WORKSPACE_COLUMN,
      "parent_run_id",
      "workflow_name",
      "status",
      "pause_reason",
      "input_json",
      "error_json",
      "annotations_json",
      "auth_json",
      "next_run_id",
      "created_at_ms",
      "updated_at_ms",
      "finished_at_ms",
    ],
  },
  nodes: {
    table: TABLES.nodes,
    columns: ["run_id", "node_id", "iteration", WORKSPACE_COLUMN, "state", "label", "output_table", "attempts", "error_json", "updated_at_ms"],
  },
  approvals: {
    table: TABLES.waits,
    filter: "status = 'pending' AND kind IN ('approval', 'human')",
    columns: ["run_id", "node_id", "iteration", WORKSPACE_COLUMN, "kind", "status", "request_json", "deadline_ms", "created_at_ms"],
  },
  members: {
    table: TABLES.members,
    columns: [WORKSPACE_COLUMN, "user_id", "role", "added_by", "added_at_ms"],
  },
} as const satisfies Record<string, ShapeDefinition>;

/**
 * The name of a shape a team workspace serves.
 * @example
 * const name: TeamShapeName = "approvals";
 */
export type TeamShapeName = keyof typeof TEAM_SHAPES;

/**
 * True when `name` is a shape the workspace serves.
 * @example
 * isTeamShape("runs"); // true
 * isTeamShape("_flow_runs"); // false: clients name shapes, not tables
 */
export function isTeamShape(name: string): name is TeamShapeName {
  return Object.hasOwn(TEAM_SHAPES, name);
}

/**
 * The `where` of a shape, with `$1` for the workspace id.
 * @example
 * shapeWhere(TEAM_SHAPES.approvals); // "workspace_id = $1 AND (status = 'pending' AND kind IN ('approval', 'human'))"
 */
export function shapeWhere(shape: ShapeDefinition): string {
  return `${WORKSPACE_COLUMN} = $1${shape.filter ? ` AND (${shape.filter})` : ""}`;
}

/**
 * The shapes a write to `table` may change (what its txid confirms).
 * @example
 * shapesOfTable("_flow_waits"); // ["approvals"]
 */
export function shapesOfTable(table: string): TeamShapeName[] {
  return (Object.keys(TEAM_SHAPES) as TeamShapeName[]).filter((name) => TEAM_SHAPES[name].table === table);
}
