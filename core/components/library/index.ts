/**
 * @module core/components/library
 * The component library (SPEC.md "Other components"): ready-made patterns composed of Task,
 * Loop, Parallel, Sequence, Approval, HumanTask and Timer. See docs/components.md,
 * "Library components".
 */
export { libraryComponents } from "./api-members.js";
export type { LibraryComponents } from "./api-members.js";
export { Aspects, exceededLimit } from "./aspects.js";
export type { AspectsProps } from "./aspects.js";
export { CheckSuite, checkVerdictSchema, suitePasses } from "./check-suite.js";
export type { CheckSpec, CheckSuiteProps } from "./check-suite.js";
export type { AgentOrChain, AgentOrFunction, StepTaskProps } from "./common.js";
export { DecisionTable, matchingRules } from "./decision-table.js";
export type { DecisionRule, DecisionTableProps } from "./decision-table.js";
export { EscalationChain, escalationRecordSchema } from "./escalation.js";
export type { EscalationChainProps, EscalationLevel } from "./escalation.js";
export { ClassifyAndRoute, classificationSchema, GatherAndSynthesize } from "./gather.js";
export type { ClassifyAndRouteProps, GatherAndSynthesizeProps, GatherSource, RouteCategory } from "./gather.js";
export { Kanban } from "./kanban.js";
export type { KanbanColumn, KanbanProps, KanbanTicket } from "./kanban.js";
export { Panel, tallyVotes } from "./panel.js";
export type { Panelist, PanelProps, PanelTally, PanelTaskProps } from "./panel.js";
export { ContentPipeline, Debate, debateArgumentSchema } from "./pipeline.js";
export type { ContentPipelineProps, DebateProps, PipelineStage } from "./pipeline.js";
export { DriftDetector, driftCompareSchema, pollCheckSchema, pollDelayMs, Poller } from "./poller.js";
export type { DriftDetectorProps, PollerProps } from "./poller.js";
export { Optimizer, optimizerScoreSchema, ReviewLoop, reviewVerdictSchema } from "./refine.js";
export type { OptimizerProps, ReviewLoopProps } from "./refine.js";
export { Runbook } from "./runbook.js";
export type { RunbookProps, RunbookStep } from "./runbook.js";
export { ScanFixVerify, scanFindingsSchema, verifyResultSchema } from "./scan-fix-verify.js";
export type { ScanFixVerifyProps } from "./scan-fix-verify.js";
export { Sidecar, sidecarDeltaSchema } from "./sidecar.js";
export type { SidecarProps } from "./sidecar.js";
