/**
 * @module core/protocol
 * Names that cross a boundary (host tags in frames, internal tables): one module, so that a
 * rename is one edit and a stray literal is easy to find.
 */

/** Host element tags of the built-in components. */
export const TAGS = {
  workflow: "flow:workflow",
  task: "flow:task",
  sequence: "flow:sequence",
  parallel: "flow:parallel",
  branch: "flow:branch",
  loop: "flow:loop",
  approval: "flow:approval",
  human: "flow:human-task",
  signal: "flow:signal",
  event: "flow:wait-for-event",
  timer: "flow:timer",
  saga: "flow:saga",
  sagaStep: "flow:saga-step",
  try: "flow:try",
  fail: "flow:fail",
  continueAsNew: "flow:continue-as-new",
  subflow: "flow:subflow",
  mergeQueue: "flow:merge-queue",
  worktree: "flow:worktree",
  sandbox: "flow:sandbox",
  aspects: "flow:aspects",
} as const;

/**
 * Annotation keys the host writes on runs (hidden from a run's own `annotations`); the
 * contract (core/api/contract.ts) re-exports them, the engine reads `cancelledBy` (WAIT_CLOSED).
 */
export const ANNOTATIONS = {
  /** The key a run was launched under (`launchRun`'s `workflow`). */
  workflow: "flow:workflow",
  /** Who launched the run, and how (launchRun provenance). */
  startedBy: "flow:startedBy",
  /** The cron that fired the run. */
  cron: "flow:cron",
  /** The webhook delivery that started the run. */
  webhook: "flow:webhook",
  /** Who cancelled the run (`cancelRun`): named by WAIT_CLOSED. */
  cancelledBy: "flow:cancelledBy",
} as const;

/**
 * Internal tables (created by core/store/migrations.ts, the one other module that spells
 * them; core/static-analysis.test.ts keeps new `_flow_*` literals out of the rest). Memory's
 * tables are `MEMORY_TABLES` (core/memory/context.ts).
 */
export const TABLES = {
  meta: "_flow_meta",
  migrations: "_flow_migrations",
  runs: "_flow_runs",
  nodes: "_flow_nodes",
  attempts: "_flow_attempts",
  events: "_flow_events",
  frames: "_flow_frames",
  cache: "_flow_cache",
  waits: "_flow_waits",
  signals: "_flow_signals",
  scores: "_flow_scores",
  toolCalls: "_flow_tool_calls",
  timeTravel: "_flow_time_travel",
  crons: "_flow_crons",
  webhookDeliveries: "_flow_webhook_deliveries",
  members: "_flow_members",
  writeIds: "_flow_write_ids",
} as const;

/**
 * Key of a run's iterations map holding where the current pass of nested loop `loopId` began
 * (core/engine/nested-loops.ts writes it; the library components read it to count passes).
 * @example
 * ctx.iterations[passStartKey("review")]; // the iteration the current pass started at
 */
export function passStartKey(loopId: string): string {
  return `${loopId}#start`;
}
