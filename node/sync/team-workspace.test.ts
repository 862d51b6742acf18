/**
 * The team tables are numbered migrations shared by both dialects (core/store/migrations.ts
 * "team-workspace"), and `prepareTeamWorkspace` (sync/team-workspace.ts) only fills them in:
 * rows written before the store served a team get its id, later rows carry it by default.
 */
import { describe, expect, it } from "vitest";
import { migrateStore, openPostgresStore, openSqliteStore, type StorePort } from "durable-flow";
import { prepareTeamWorkspace } from "durable-flow/sync";
import { freshPostgresSchema } from "../testing/postgres-test-db.js";

const insertRun = (store: StorePort, runId: string) =>
  store.execute(`INSERT INTO _flow_runs (run_id, workflow_name, status, created_at_ms, updated_at_ms) VALUES (?, 'greet', 'queued', 1, 1)`, [runId]);

describe("team tables", () => {
  // PGlite shares the postgres dialect's statements with PostgreSQL.
  it.each([
    ["sqlite", async () => ({ store: openSqliteStore({ path: ":memory:" }) as StorePort, drop: async () => {} })],
    ["postgres", async () => {
      const db = await freshPostgresSchema();
      return { store: openPostgresStore({ connectionString: db.url }) as StorePort, drop: db.drop };
    }],
  ] as const)("are created by migrateStore on %s, empty until a store serves a team", async (_name, open) => {
    const { store, drop } = await open();
    try {
      await migrateStore(store, 1);
      await insertRun(store, "r1");
      expect(await store.query(`SELECT workspace_id FROM _flow_runs`)).toEqual([{ workspace_id: "" }]);
      await store.execute(`INSERT INTO _flow_members (workspace_id, user_id, role, added_at_ms) VALUES ('acme', 'ana', 'admin', 1)`);
      expect(await store.query(`SELECT user_id, role FROM _flow_members`)).toEqual([{ user_id: "ana", role: "admin" }]);
      expect(await store.query(`SELECT workspace_id FROM _flow_nodes`)).toEqual([]);
      expect(await store.query(`SELECT workspace_id FROM _flow_waits`)).toEqual([]);
    } finally {
      await store.close();
      await drop();
    }
  });

  it("get the workspace's id from prepareTeamWorkspace on PostgreSQL: earlier rows filled, later rows by default", async () => {
    const db = await freshPostgresSchema();
    const store = openPostgresStore({ connectionString: db.url });
    try {
      await migrateStore(store, 1);
      await insertRun(store, "before");
      expect(await prepareTeamWorkspace(store, "acme")).toEqual({ schema: db.schema });
      await insertRun(store, "after");
      expect(await store.query(`SELECT run_id, workspace_id FROM _flow_runs ORDER BY run_id`)).toEqual([
        { run_id: "after", workspace_id: "acme" },
        { run_id: "before", workspace_id: "acme" },
      ]);
      // idempotent, and another workspace on the same database is refused
      expect(await prepareTeamWorkspace(store, "acme")).toEqual({ schema: db.schema });
      await expect(prepareTeamWorkspace(store, "other")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
