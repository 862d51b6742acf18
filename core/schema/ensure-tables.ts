/**
 * @module core/schema/ensure-tables
 * Creates the user tables of a registry and adds columns that schemas gained since (so an
 * edited workflow keeps its runs resumable). Async for every store, sync for SQLite.
 */
import type { StorePort, SyncScriptRunner } from "../store/port.js";
import type { SchemaRegistry } from "./registry.js";
import { addMissingColumnsSql, createTableSql, tableColumnsQuery } from "./tables.js";

/** Creates or widens every user table (async stores). */
export async function ensureUserTables(store: StorePort, registry: SchemaRegistry): Promise<void> {
  for (const e of registry.entries.values()) {
    await store.executeScript(createTableSql(store.dialect, e.tableName, e.columns, e.isInput));
    const existing = new Set((await store.query<{ name: string }>(tableColumnsQuery(store.dialect), [e.tableName])).map((r) => r.name));
    for (const sql of addMissingColumnsSql(store.dialect, e.tableName, e.columns, existing)) await store.executeScript(sql);
  }
}

/** Creates or widens every user table (synchronous SQLite). */
export function ensureUserTablesSync(store: StorePort & SyncScriptRunner, registry: SchemaRegistry): void {
  for (const e of registry.entries.values()) {
    store.executeScriptSync(createTableSql(store.dialect, e.tableName, e.columns, e.isInput));
    const existing = new Set(store.querySync<{ name: string }>(tableColumnsQuery(store.dialect), [e.tableName]).map((r) => r.name));
    for (const sql of addMissingColumnsSql(store.dialect, e.tableName, e.columns, existing)) store.executeScriptSync(sql);
  }
}
