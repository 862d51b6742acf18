/**
 * @module core/components/library/api-members
 * The library components as members of the api object a factory returns (`createFlow(...)`):
 * one object, so the factory adds them in one line.
 */
import { Aspects } from "./aspects.js";
import { CheckSuite } from "./check-suite.js";
import { DecisionTable } from "./decision-table.js";
import { EscalationChain } from "./escalation.js";
import { ClassifyAndRoute, GatherAndSynthesize } from "./gather.js";
import { Kanban } from "./kanban.js";
import { Panel } from "./panel.js";
import { ContentPipeline, Debate } from "./pipeline.js";
import { DriftDetector, Poller } from "./poller.js";
import { Optimizer, ReviewLoop } from "./refine.js";
import { Runbook } from "./runbook.js";
import { ScanFixVerify } from "./scan-fix-verify.js";
import { Sidecar } from "./sidecar.js";

/**
 * The library components, by name.
 * @example
 * const { Poller, ReviewLoop, Panel } = createFlow(schemas); // members of every api
 */
export const libraryComponents = {
  Poller,
  Kanban,
  Aspects,
  CheckSuite,
  ClassifyAndRoute,
  GatherAndSynthesize,
  ContentPipeline,
  Debate,
  DecisionTable,
  DriftDetector,
  EscalationChain,
  Optimizer,
  Panel,
  Sidecar,
  ReviewLoop,
  Runbook,
  ScanFixVerify,
};

/** The type of `libraryComponents`: what every api object has beside the core components. */
export type LibraryComponents = typeof libraryComponents;
