/**
 * @module core/store/port
 * The store port: the only way the engine reaches storage (DESIGN.md seam 1). Adapters live in
 * `node/store/` and `browser/store/` and all pass `runStoreContract` (core/store/contract.ts).
 * See docs/store.md.
 */

/** SQL dialect of a store. PGlite and PostgreSQL share `postgres`. */
export type Dialect = "sqlite" | "postgres";

/** A value bound to a `?` placeholder. Booleans are bound as 0/1 on SQLite. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/** One result row: column name to value, as the driver returns it. */
export type SqlRow = Record<string, unknown>;

/** Runs statements. SQL uses `?` placeholders in both dialects; adapters translate. */
export interface SqlExecutor {
  /** Runs a statement; resolves to the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** Runs a query; resolves to its rows. */
  query<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
}

/**
 * A store: an executor, transactions and a dialect tag.
 * @example
 * await store.transaction(async (tx) => {
 *   await tx.execute("UPDATE _flow_runs SET status = ? WHERE run_id = ?", ["finished", runId]);
 * });
 */
export interface StorePort extends SqlExecutor {
  readonly dialect: Dialect;
  /**
   * Where the store keeps its data, as a line for messages that also tells two stores apart: a
   * SQLite file's path, a PGlite folder, a PostgreSQL target, a browser database; a store in
   * memory names itself apart from every other. Optional: stores without one are not compared.
   */
  readonly location?: string;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it rejects.
   * Statements outside the transaction wait until it ends (no interleaving on one connection).
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Optional: runs `statements` in one transaction, sent to the database together (one round
   * trip) rather than one by one. The engine commits each scheduling step through it when the
   * adapter has it; its effect must equal `transaction` running each statement in order.
   */
  executeBatch?(statements: ReadonlyArray<readonly [string, readonly SqlValue[]]>): Promise<void>;
  /** Runs several statements (DDL) as one script, outside any transaction. */
  executeScript(sql: string): Promise<void>;
  /** Releases the connection; later calls fail. */
  close(): Promise<void>;
}

/** Store adapters that can also run synchronously (SQLite), used by the synchronous `createFlow`. */
export interface SyncScriptRunner {
  executeScriptSync(sql: string): void;
  querySync<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[];
}
