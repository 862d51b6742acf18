/**
 * @module core/data/rows
 * The rows of the data layer's collections (SPEC.md "Data layer" row types), shaped for a
 * console. Rows the domain API already answers are its own types (core/api/read-model.ts,
 * core/api/node-rows.ts: one type per name on every entry point); the others are defined
 * here with a stable `key` where the API's row has no single id.
 * Fields are documented in docs/client.md "Rows".
 */
import type { CronRow, GatewayPromptRow, GatewayRunNode, GatewayRunRow, GatewayRunSummaryRow, GatewayWorkflowRow } from "../api/index.js";
import type { GatewayApprovalRow, GatewayRunEventRow } from "../api/internal.js";
import type { GraphSnapshot } from "../engine/index.js";
import type { MemoryFact, MemoryNote } from "../memory/index.js";
import type { ScoreRow } from "../scorers/index.js";

export type { GatewayApprovalRow, GatewayPromptRow, GatewayRunEventRow, GatewayRunNode, GatewayRunRow, GatewayRunSummaryRow, GatewayWorkflowRow };
export { nodeKey, runNodeKey } from "../api/wire/index.js";

/**
 * A cron schedule (`cronId`, `workflowKey`, `schedule`, `input`, `enabled`, `createdBy`, times, `lastRunId`, `nextFireAtMs`).
 * @example
 * cols.crons.toArray.filter((c: GatewayCronRow) => c.enabled).map((c) => c.nextFireAtMs);
 */
export type GatewayCronRow = CronRow;

/**
 * A live memory fact (`namespace`, `key`, `value` parsed from `valueJson`, times, `ttlMs`), keyed `<namespace>/<key>`.
 * @example
 * cols.memoryFacts.get("user:ana/theme")?.value;
 */
export type GatewayMemoryFactRow = MemoryFact & { value: unknown; id: string };

/**
 * A score a scorer gave a task's output (SPEC.md `ScoreRow`), keyed by `id`.
 * @example
 * cols.scores.toArray.filter((s: GatewayScoreRow) => s.runId === runId).map((s) => s.score);
 */
export type GatewayScoreRow = ScoreRow;

/**
 * A memory note of a namespace (a doc a person or agent wrote: `body`, `kind`, `status`, provenance), keyed by `id`.
 * @example
 * cols.docs("workflow:review").toArray.map((d: GatewayDocRow) => d.body);
 */
export type GatewayDocRow = MemoryNote;

/**
 * A task of a run's latest graph snapshot (what the run tree shows), keyed `<nodeId>#<iteration>`.
 * @example
 * cols.runTree(runId).toArray.map((t: GatewayRunTreeRow) => t.nodeId);
 */
export type GatewayRunTreeRow = GraphSnapshot["tasks"][number] & { key: string; runId: string; frameNo: number };

/**
 * A ticket of a `Kanban` board in a run: a task of the board, with the column it is in and its state, keyed `<runId>/<nodeId>#<iteration>`.
 * @example
 * cols.tickets(runId).toArray.filter((t: GatewayTicketRow) => t.column === "review");
 */
export interface GatewayTicketRow {
  key: string;
  runId: string;
  nodeId: string;
  iteration: number;
  /** The board's id (the Kanban `id`). */
  board: string;
  /** The ticket id. */
  ticket: string;
  /** The column of this task. */
  column: string;
  state: GatewayRunNode["state"];
  updatedAtMs: number;
}
