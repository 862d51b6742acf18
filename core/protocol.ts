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
 * Who cancelled a run (a run annotation the Gateway's `cancelRun` writes, hidden from a run's
 * `annotations`): the engine names them when it refuses a decision for the cancelled run (WAIT_CLOSED).
 */
export const CANCELLED_BY_ANNOTATION = "flow:cancelledBy";

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
