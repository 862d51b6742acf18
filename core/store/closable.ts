/**
 * @module core/store/closable
 * The part of the store port that every adapter words the same: statements refuse to run once
 * the store is closed (the contract: they reject with STORE_OPEN_FAILED, never throw before
 * returning). See docs/store.md.
 */
import type { SqlExecutor, SqlRow, SqlValue } from "./port.js";

/**
 * `execute` and `query` of `direct`, each calling `guard` (which throws when closed) first.
 * @example
 * const store = { ...closableExecutor(direct, () => { if (closed) throw new FlowError("STORE_OPEN_FAILED", "closed"); }) };
 */
export function closableExecutor(direct: SqlExecutor, guard: () => void): SqlExecutor {
  return {
    async execute(sql, params) {
      guard();
      return direct.execute(sql, params);
    },
    async query<T extends SqlRow>(sql: string, params?: readonly SqlValue[]) {
      guard();
      return direct.query<T>(sql, params);
    },
  };
}
