/**
 * @module core/api/usage-metas
 * The usage metadata (`meta_json`: tokens, cost) of runs' attempts, their child runs'
 * (`<runId>/...`) included: what a run list's and a workflow's usage roll up.
 */
import { TABLES } from "../protocol.js";
import type { GatewayHost } from "./host.js";

/**
 * Runs per query. Each adds an `OR` to the condition, which SQLite parses into a tree one level
 * deeper per term (its limit is 1,000: a page of 500 runs failed with "Expression tree is too
 * large"), and three parameters.
 */
const RUNS_PER_QUERY = 200;

/**
 * The usage metadata of the attempts of each of `runIds` and of their child runs, by run id
 * (a child run's attempts count for each of its ancestors given); runs without any are absent.
 * One query per RUNS_PER_QUERY runs, each a range of `_flow_attempts`' primary key per run.
 * @example
 * const metas = await usageMetasOf(host, ["r1", "r2"]); // Map { "r1" => [{ usage: {...}, costUsd: 0.01 }] }
 */
export async function usageMetasOf(host: GatewayHost, runIds: readonly string[]): Promise<Map<string, unknown[]>> {
  const wanted = new Set(runIds);
  const metas = new Map<string, unknown[]>();
  for (let i = 0; i < runIds.length; i += RUNS_PER_QUERY) {
    const chunk = runIds.slice(i, i + RUNS_PER_QUERY);
    // `<id>/` up to `<id>0` ("0" sorts right after "/") holds exactly the ids under `<id>/`.
    const rows = await host.db.store.query<{ run_id: string; meta_json: string }>(
      `SELECT run_id, meta_json FROM ${TABLES.attempts} WHERE meta_json IS NOT NULL AND (${chunk.map(() => "run_id = ? OR (run_id > ? AND run_id < ?)").join(" OR ")})`,
      chunk.flatMap((id) => [id, `${id}/`, `${id}0`]),
    );
    for (const r of rows) {
      const parts = r.run_id.split("/");
      const meta = JSON.parse(r.meta_json) as unknown;
      for (let n = 1; n <= parts.length; n++) {
        const id = parts.slice(0, n).join("/");
        if (!wanted.has(id)) continue;
        const list = metas.get(id);
        if (list) list.push(meta);
        else metas.set(id, [meta]);
      }
    }
  }
  return metas;
}
