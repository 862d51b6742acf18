/**
 * @module core/store/migrations
 * The numbered migrations of Flow's internal `_flow_*` tables, one list for both dialects
 * (STYLE.md: one source of truth for schema). Numbers may leave gaps: each area owns its
 * number (the note tables are 0023). No other module writes `CREATE TABLE` for `_flow_*`.
 */
import { type ColumnKind, sqlType } from "./dialect.js";
import type { Dialect, StorePort, SyncScriptRunner } from "./port.js";

export interface Migration {
  id: number;
  name: string;
  /** The migration's DDL statements in a dialect. */
  up(dialect: Dialect): string[];
}

/** Builds `CREATE TABLE` from `name kind [modifiers]` column lines. */
function table(dialect: Dialect, name: string, columns: string[], primaryKey: string[]): string {
  const defs = columns.map((line) => {
    const [col, kind, ...rest] = line.split(" ");
    return [col, sqlType(dialect, kind as ColumnKind), ...rest].join(" ");
  });
  defs.push(`PRIMARY KEY (${primaryKey.join(", ")})`);
  return `CREATE TABLE IF NOT EXISTS ${name} (${defs.join(", ")})`;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: "engine",
    up: (d) => [
      table(d, "_flow_meta", ["key text NOT NULL", "value text"], ["key"]),
      table(
        d,
        "_flow_runs",
        [
          "run_id text NOT NULL",
          "parent_run_id text",
          "workflow_name text",
          "workflow_hash text",
          "status text NOT NULL",
          "input_json text",
          "output_json text",
          "error_json text",
          "iterations_json text",
          "annotations_json text",
          "auth_json text",
          "config_json text",
          "flags_json text",
          "owner_id text",
          "heartbeat_at_ms bigint",
          "next_run_id text",
          "created_at_ms bigint NOT NULL",
          "updated_at_ms bigint NOT NULL",
          "finished_at_ms bigint",
        ],
        ["run_id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_runs_status ON _flow_runs (status, updated_at_ms)`,
      `CREATE INDEX IF NOT EXISTS _flow_runs_parent ON _flow_runs (parent_run_id)`,
      table(
        d,
        "_flow_nodes",
        [
          "run_id text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "state text NOT NULL",
          "ordinal int",
          "label text",
          "output_table text",
          "attempts int NOT NULL DEFAULT 0",
          "error_json text",
          "updated_at_ms bigint NOT NULL",
        ],
        ["run_id", "node_id", "iteration"],
      ),
      table(
        d,
        "_flow_attempts",
        [
          "run_id text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "attempt int NOT NULL",
          "state text NOT NULL",
          "started_at_ms bigint NOT NULL",
          "finished_at_ms bigint",
          "error_json text",
          "meta_json text",
          "vcs_pointer text",
        ],
        ["run_id", "node_id", "iteration", "attempt"],
      ),
      table(
        d,
        "_flow_events",
        ["run_id text NOT NULL", "seq int NOT NULL", "type text NOT NULL", "timestamp_ms bigint NOT NULL", "payload_json text NOT NULL"],
        ["run_id", "seq"],
      ),
      table(
        d,
        "_flow_frames",
        ["run_id text NOT NULL", "frame_no int NOT NULL", "kind text NOT NULL", "data_json text NOT NULL", "created_at_ms bigint NOT NULL"],
        ["run_id", "frame_no"],
      ),
      table(
        d,
        "_flow_cache",
        [
          "cache_key text NOT NULL",
          "scope text NOT NULL",
          "node_id text NOT NULL",
          "output_table text NOT NULL",
          "output_json text NOT NULL",
          "created_at_ms bigint NOT NULL",
          "expires_at_ms bigint",
        ],
        ["cache_key"],
      ),
    ],
  },
  // ---- memory and scorers (issue 7; docs/memory.md, docs/scorers.md) ----
  {
    id: 2,
    name: "waits",
    up: (d) => [
      // One row per waiting node (approval, human task, signal, event, timer): its request, its
      // deadline, and its resolution once delivered. Deliveries are durable before they are
      // acknowledged; the engine settles the node from here exactly once.
      table(
        d,
        "_flow_waits",
        [
          "run_id text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "kind text NOT NULL",
          "status text NOT NULL",
          "name text",
          "correlation_id text",
          "request_json text",
          "deadline_ms bigint",
          "resolution_json text",
          "resolved_by text",
          "created_at_ms bigint NOT NULL",
          "resolved_at_ms bigint",
        ],
        ["run_id", "node_id", "iteration"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_waits_status ON _flow_waits (status, kind, deadline_ms)`,
      // Signals and events delivered to a run (or to whichever run waits on a correlation id),
      // consumed by exactly one waiting node.
      table(
        d,
        "_flow_signals",
        [
          "delivery_id text NOT NULL",
          "kind text NOT NULL",
          "name text NOT NULL",
          "run_id text",
          "correlation_id text",
          "payload_json text NOT NULL",
          "created_at_ms bigint NOT NULL",
          "consumed_run_id text",
          "consumed_node_id text",
          "consumed_iteration int",
          "consumed_at_ms bigint",
        ],
        ["delivery_id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_signals_open ON _flow_signals (kind, name, consumed_run_id)`,
    ],
  },
  {
    id: 3,
    name: "run-scopes",
    // Failures recorded on Saga / TryCatchFinally blocks of a run (scope id -> failure).
    up: () => [`ALTER TABLE _flow_runs ADD COLUMN scopes_json TEXT`],
  },
  {
    id: 4,
    name: "tool-calls",
    // Side-effecting tool calls, recorded before the tool runs: a retry of the task warns its
    // agent about calls an earlier attempt made (SPEC.md tool retry table).
    up: (d) => [
      table(
        d,
        "_flow_tool_calls",
        [
          "run_id text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "attempt int NOT NULL",
          "seq int NOT NULL",
          "tool_name text NOT NULL",
          "idempotency_key text NOT NULL",
          "side_effect bool NOT NULL",
          "idempotent bool NOT NULL",
          "called_at_ms bigint NOT NULL",
        ],
        ["run_id", "node_id", "iteration", "attempt", "seq"],
      ),
    ],
  },
  {
    id: 5,
    name: "run-control",
    // `workflow_path`: the file a run's workflow was loaded from (CLI commands find it by the
    // run id). `requested_state`: a cancel or pause asked by another process (`flow cancel`,
    // a Gateway), read by the owner's claim heartbeat. (`workspace_dir`, migration 15, is now
    // written when the run starts: every resume works in it.)
    up: () => [`ALTER TABLE _flow_runs ADD COLUMN workflow_path TEXT`, `ALTER TABLE _flow_runs ADD COLUMN requested_state TEXT`],
  },
  {
    id: 15,
    name: "time-travel",
    // Time travel (docs/time-travel.md): the tree each attempt started from, the workspace a
    // run snapshots, the run's attention flag (a forced crossing of a side effect), and one
    // intent row per rewind/revert, written before the files move (crash recovery).
    up: (d) => [
      `ALTER TABLE _flow_attempts ADD COLUMN vcs_start_pointer TEXT`,
      `ALTER TABLE _flow_runs ADD COLUMN workspace_dir TEXT`,
      `ALTER TABLE _flow_runs ADD COLUMN attention_json TEXT`,
      table(
        d,
        "_flow_time_travel",
        [
          "run_id text NOT NULL",
          "intent_id text NOT NULL",
          "kind text NOT NULL",
          "status text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "attempt int NOT NULL",
          "pointer text",
          "before_pointer text",
          "options_json text NOT NULL",
          "crossed_json text",
          "error_json text",
          "owner_id text",
          "created_at_ms bigint NOT NULL",
          "finished_at_ms bigint",
        ],
        ["run_id", "intent_id"],
      ),
    ],
  },
  {
    id: 20,
    name: "memory-facts",
    up: (d) => [
      table(
        d,
        "_flow_facts",
        [
          "namespace text NOT NULL",
          "key text NOT NULL",
          "value_json text NOT NULL",
          "schema_sig text",
          "created_at_ms bigint NOT NULL",
          "updated_at_ms bigint NOT NULL",
          "ttl_ms bigint",
          "expires_at_ms bigint",
        ],
        ["namespace", "key"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_facts_expires ON _flow_facts (expires_at_ms)`,
    ],
  },
  {
    id: 21,
    name: "memory-threads",
    up: (d) => [
      table(
        d,
        "_flow_threads",
        ["thread_id text NOT NULL", "namespace text NOT NULL", "title text", "metadata_json text", "created_at_ms bigint NOT NULL", "updated_at_ms bigint NOT NULL"],
        ["thread_id"],
      ),
      table(
        d,
        "_flow_messages",
        [
          "id text NOT NULL",
          "thread_id text NOT NULL",
          "seq bigint NOT NULL",
          "role text NOT NULL",
          "content_json text NOT NULL",
          "run_id text",
          "node_id text",
          "created_at_ms bigint NOT NULL",
        ],
        ["id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_messages_thread ON _flow_messages (thread_id, created_at_ms, seq)`,
    ],
  },
  {
    id: 22,
    name: "scores",
    up: (d) => [
      table(
        d,
        "_flow_scores",
        [
          "id text NOT NULL",
          "run_id text NOT NULL",
          "node_id text NOT NULL",
          "iteration int NOT NULL",
          "attempt int NOT NULL",
          "scorer_id text NOT NULL",
          "scorer_name text NOT NULL",
          "source text NOT NULL",
          "score real NOT NULL",
          "reason text",
          "meta_json text",
          "input_json text",
          "output_json text",
          "ground_truth_json text",
          "context_json text",
          "latency_ms real",
          "scored_at_ms bigint NOT NULL",
          "duration_ms real",
        ],
        ["id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_scores_run ON _flow_scores (run_id, node_id)`,
      `CREATE INDEX IF NOT EXISTS _flow_scores_scorer ON _flow_scores (scorer_id)`,
    ],
  },
  {
    id: 23,
    name: "memory-notes",
    up: (d) => [
      table(
        d,
        "_flow_notes",
        [
          "id text NOT NULL",
          "seq bigint NOT NULL",
          "namespace text NOT NULL",
          "ns_kind text NOT NULL",
          "body text NOT NULL",
          "kind text",
          "tags_json text",
          "author text",
          "status text NOT NULL",
          "status_changed_at_ms bigint",
          "created_at_ms bigint NOT NULL",
          "run_id text",
          "node_id text",
          "iteration int",
        ],
        ["id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_notes_namespace ON _flow_notes (namespace, created_at_ms, seq)`,
      `CREATE INDEX IF NOT EXISTS _flow_notes_seq ON _flow_notes (seq)`,
      `CREATE INDEX IF NOT EXISTS _flow_notes_kind ON _flow_notes (ns_kind)`,
      table(d, "_flow_note_edges", ["note_id text NOT NULL", "supersedes_id text NOT NULL", "created_at_ms bigint NOT NULL"], ["note_id", "supersedes_id"]),
      `CREATE INDEX IF NOT EXISTS _flow_note_edges_target ON _flow_note_edges (supersedes_id)`,
    ],
  },
  {
    id: 24,
    name: "memory-note-search",
    up: (d) => [table(d, "_flow_note_search", ["ns_kind text NOT NULL", "enabled_at_ms bigint NOT NULL"], ["ns_kind"])],
  },
  // ---- hosting (issue 11; docs/hosting.md) ----
  {
    id: 30,
    name: "gateway",
    up: (d) => [
      // Cron schedules. A Gateway's `register(key, wf, { schedule })` writes `gateway:<key>`;
      // `cronCreate` writes others. `next_run_at_ms` is claimed with compare-and-set by
      // whichever gateway fires it, so gateways sharing a store fire each slot once.
      table(
        d,
        "_flow_crons",
        [
          "cron_id text NOT NULL",
          "workflow_key text NOT NULL",
          "expression text NOT NULL",
          "input_json text",
          "enabled int NOT NULL DEFAULT 1",
          "next_run_at_ms bigint",
          "last_run_at_ms bigint",
          "last_run_id text",
          "created_at_ms bigint NOT NULL",
          "updated_at_ms bigint NOT NULL",
        ],
        ["cron_id"],
      ),
      // Verified webhook deliveries, recorded before they act: a redelivery (same
      // x-github-delivery id, else the same body hash) is a no-op.
      table(
        d,
        "_flow_webhook_deliveries",
        ["webhook_key text NOT NULL", "delivery_id text NOT NULL", "result_json text", "received_at_ms bigint NOT NULL"],
        ["webhook_key", "delivery_id"],
      ),
    ],
  },
  {
    id: 31,
    name: "cron-created-by",
    // Who created a cron (the caller's triggeredBy, or `gateway` for registered schedules).
    up: () => [`ALTER TABLE _flow_crons ADD COLUMN created_by TEXT`],
  },
  // ---- waits, rewinds and stops (issue 23; docs/engine.md "Pausing") ----
  {
    id: 35,
    name: "run-pause-reason",
    // Why a paused run is paused: `person` (pauseRun, the app, an alert), `shutdown` (its host
    // stopped: a host serving its workflow resumes it when it starts) or `rewind` (time travel
    // not asked to resume: it waits for a person). Null for runs that are not paused.
    up: () => [`ALTER TABLE _flow_runs ADD COLUMN pause_reason TEXT`],
  },
  // ---- team workspaces (docs/multiplayer.md; sync/) ----
  {
    id: 40,
    name: "team-workspace",
    // Members of a team workspace, and the `workspace_id` every table a shape reads carries
    // (sync/team-shapes.ts). Empty until a store serves a team: prepareTeamWorkspace
    // (sync/team-workspace.ts) fills it and makes the workspace's id its default. IF NOT EXISTS
    // on PostgreSQL: a team database prepared before this migration already has the columns.
    up: (d) => [
      table(d, "_flow_members", ["workspace_id text NOT NULL", "user_id text NOT NULL", "role text NOT NULL", "added_by text", "added_at_ms bigint NOT NULL"], ["workspace_id", "user_id"]),
      ...["_flow_runs", "_flow_nodes", "_flow_waits"].map((t) => `ALTER TABLE ${t} ADD COLUMN ${d === "postgres" ? "IF NOT EXISTS " : ""}workspace_id TEXT NOT NULL DEFAULT ''`),
    ],
  },
  // ---- offline writes (issue 28; docs/multiplayer.md "Offline writes") ----
  {
    id: 41,
    name: "write-ids",
    // The write ids (`flow-write-id` header) a Gateway applied, per workspace ('' outside a
    // team): who sent each, for which request and body, the txid of the transaction that
    // applied it (recorded in that transaction) and the answer given, replayed to a resend.
    // Kept WRITE_ID_RETENTION_MS (node/server/write-ids.ts), pruned by applied_at_ms.
    up: (d) => [
      table(
        d,
        "_flow_write_ids",
        [
          "workspace_id text NOT NULL",
          "write_id text NOT NULL",
          "sent_by text NOT NULL",
          "request text NOT NULL",
          "body_hash text NOT NULL",
          "txid text",
          "status int",
          "answer_json text",
          "applied_at_ms bigint NOT NULL",
        ],
        ["workspace_id", "write_id"],
      ),
      `CREATE INDEX IF NOT EXISTS _flow_write_ids_applied ON _flow_write_ids (applied_at_ms)`,
    ],
  },
];

/** The schema version a store is at once every migration ran: the highest id, four digits. */
export const SCHEMA_VERSION = String(Math.max(...MIGRATIONS.map((m) => m.id))).padStart(4, "0");

const LEDGER = (d: Dialect) =>
  table(d, "_flow_migrations", ["id int NOT NULL", "name text NOT NULL", "applied_at_ms bigint NOT NULL"], ["id"]);

/** The statements that bring a store from `applied` migration ids to the newest. */
export function pendingMigrations(dialect: Dialect, applied: ReadonlySet<number>, nowMs: number): { id: number; statements: string[] }[] {
  // schemaVersion is the highest id applied so far: a low-numbered migration added later (an
  // area's own number) must not lower it.
  let highest = Math.max(0, ...applied);
  return MIGRATIONS.filter((m) => !applied.has(m.id)).map((m) => {
    highest = Math.max(highest, m.id);
    return {
      id: m.id,
      statements: [
        ...m.up(dialect),
        `INSERT INTO _flow_migrations (id, name, applied_at_ms) VALUES (${m.id}, '${m.name}', ${Math.trunc(nowMs)}) ON CONFLICT DO NOTHING`,
        `INSERT INTO _flow_meta (key, value) VALUES ('schemaVersion', '${String(highest).padStart(4, "0")}') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ],
    };
  });
}

/** The ledger DDL and the query for applied ids; shared by the async and the synchronous runner. */
export const migrationLedger = { create: LEDGER, applied: `SELECT id FROM _flow_migrations` };

/**
 * Applies pending migrations on an async store. On PostgreSQL an advisory lock serializes
 * workers that start together against one database.
 */
export async function migrateStore(store: StorePort, nowMs: number): Promise<void> {
  await store.transaction(async (tx) => {
    // The ledger is created under the lock too: two workers creating it at once on a fresh
    // PostgreSQL database collide on the catalog otherwise.
    if (store.dialect === "postgres") await tx.query(`SELECT pg_advisory_xact_lock(7331001)`);
    await tx.execute(LEDGER(store.dialect));
    const applied = new Set((await tx.query<{ id: number }>(migrationLedger.applied)).map((r) => Number(r.id)));
    for (const m of pendingMigrations(store.dialect, applied, nowMs)) {
      for (const s of m.statements) await tx.execute(s);
    }
  });
}

/** Applies pending migrations synchronously (SQLite, for the synchronous `createFlow`). */
export function migrateStoreSync(store: StorePort & SyncScriptRunner, nowMs: number): void {
  store.executeScriptSync(LEDGER(store.dialect));
  const applied = new Set(store.querySync<{ id: number }>(migrationLedger.applied).map((r) => Number(r.id)));
  for (const m of pendingMigrations(store.dialect, applied, nowMs)) {
    store.executeScriptSync(`BEGIN;\n${m.statements.join(";\n")};\nCOMMIT;`);
  }
}
