/**
 * @module sync/team-workspace
 * A team workspace (docs/multiplayer.md): one PostgreSQL database (or schema) shared by the
 * Gateways that run its workflows, read by browsers through Electric. The tables are the
 * numbered migrations' (core/store/migrations.ts "team-workspace": `_flow_members`, and a
 * `workspace_id` column on every table a shape reads, empty in a store that serves no team).
 * `prepareTeamWorkspace` makes a migrated store serve workspace `workspaceId`, idempotently
 * and under an advisory lock (Gateways start together): rows written before get the id, the
 * column's default becomes the id (so every row the engine writes carries it without the
 * engine knowing), and the tables get `REPLICA IDENTITY FULL` (Electric evaluates an update's
 * old row against the shape's where). Both are per store and PostgreSQL-only, hence here and
 * not in a migration. The id is recorded in `_flow_meta`; a Gateway started with another id on
 * the same database is refused. A later start alters only what is missing (a table a newer
 * version reads), so Gateways joining a running workspace lock nothing.
 */
import { FlowError } from "../core/errors.js";
import type { StorePort } from "../core/store/index.js";
import { TABLES } from "../core/protocol.js";
import { TEAM_SHAPES, WORKSPACE_COLUMN } from "./team-shapes.js";

/**
 * `GatewayOptions.team`: makes the Gateway serve a team workspace.
 * @example
 * const team: GatewayTeamOptions = { workspaceId: "acme", electricUrl: "http://electric:3000", electricSecret: process.env.ELECTRIC_SECRET, owners: ["ana"] };
 */
export interface GatewayTeamOptions {
  /** The workspace id: letters, digits, `_` and `-` (at most 64). Every Gateway of the workspace uses the same. */
  workspaceId: string;
  /** Shown in the app's workspace switcher (default: the id). */
  name?: string;
  /** Electric's origin (`http://electric:3000`); the proxy calls `<electricUrl>/v1/shape`. */
  electricUrl: string;
  /** Electric's `ELECTRIC_SECRET`, added server-side to every shape request. */
  electricSecret?: string;
  /** User ids that are admins of the workspace without a member row (the first admins). */
  owners?: string[];
  /** The `fetch` the proxy reaches Electric with (default: the global one). */
  fetch?: typeof fetch;
}

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Throws INVALID_ARGUMENT unless `id` is a valid workspace id.
 * @example
 * assertWorkspaceId("acme");
 */
export function assertWorkspaceId(id: string): void {
  if (!WORKSPACE_ID.test(id)) throw new FlowError("INVALID_ARGUMENT", `Workspace id "${id}" must be 1-64 letters, digits, _ or -.`, { workspaceId: id });
}

/** The tables the team shapes read. */
const SYNCED_TABLES = [...new Set(Object.values(TEAM_SHAPES).map((s) => s.table))].filter((t) => t !== TABLES.members);

/**
 * Prepares `store` (PostgreSQL, migrated) to serve team workspace `workspaceId`; answers the
 * schema its tables live in (what Electric's `table` parameter names).
 * @example
 * const { schema } = await prepareTeamWorkspace(host.db.store, "acme");
 */
export async function prepareTeamWorkspace(store: StorePort, workspaceId: string): Promise<{ schema: string }> {
  assertWorkspaceId(workspaceId);
  if (store.dialect !== "postgres" || !("pool" in store)) {
    throw new FlowError("INVALID_ARGUMENT", `Team workspace "${workspaceId}" needs a PostgreSQL store (createFlowPostgres / bindWorkflows over a postgres:// URL); this Gateway's store is ${store.dialect === "sqlite" ? "SQLite" : "PGlite"}.`, { workspaceId });
  }
  return store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(7331014)");
    const [{ schema } = { schema: "public" }] = await tx.query<{ schema: string }>("SELECT current_schema() AS schema");
    const [recorded] = await tx.query<{ value: string }>(`SELECT value FROM ${TABLES.meta} WHERE key = 'workspaceId'`);
    if (recorded && recorded.value !== workspaceId) {
      throw new FlowError("INVALID_ARGUMENT", `This database already holds team workspace "${recorded.value}"; start the Gateway with team.workspaceId "${recorded.value}", or give workspace "${workspaceId}" a database of its own.`, {
        workspaceId,
        recorded: recorded.value,
      });
    }
    // Only what is missing is altered (ALTER TABLE locks the table, and other Gateways may be running).
    const defaults = await tx.query<{ table_name: string; column_default: string | null }>(
      `SELECT table_name, column_default FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = ?`,
      [WORKSPACE_COLUMN],
    );
    const ours = (t: string) => defaults.some((r) => r.table_name === t && (r.column_default ?? "").includes(`'${workspaceId}'`));
    const missing = SYNCED_TABLES.filter((t) => !ours(t));
    if (recorded && missing.length === 0) return { schema };
    for (const table of missing) {
      // The id is checked (assertWorkspaceId): letters, digits, _ and - only.
      await tx.execute(`UPDATE ${table} SET ${WORKSPACE_COLUMN} = ? WHERE ${WORKSPACE_COLUMN} = ''`, [workspaceId]);
      await tx.execute(`ALTER TABLE ${table} ALTER COLUMN ${WORKSPACE_COLUMN} SET DEFAULT '${workspaceId}'`);
      await tx.execute(`ALTER TABLE ${table} REPLICA IDENTITY FULL`);
    }
    await tx.execute(`ALTER TABLE ${TABLES.members} REPLICA IDENTITY FULL`);
    if (!recorded) await tx.execute(`INSERT INTO ${TABLES.meta} (key, value) VALUES ('workspaceId', ?)`, [workspaceId]);
    return { schema };
  });
}
