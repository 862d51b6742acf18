/**
 * @module core/api/workflow-db
 * The store handle of a run's own workflow. A host's `db` reads every run, but only a handle
 * opened through the run's workflow knows its output tables — which time travel and
 * `retryTask` need to clear the rows of the tasks they reset.
 */
import { FlowDb } from "../engine/index.js";
import type { GatewayHost } from "./host.js";

/**
 * The run's workflow's handle (the host's `db` when the host does not serve that workflow).
 * @example
 * const db = await workflowDbOf(host, "r1");
 * await timeTravel(db, { runId: "r1", nodeId: "review" });
 */
export async function workflowDbOf(host: GatewayHost, runId: string): Promise<FlowDb> {
  const key = host.workflowKeyOf(await host.db.requireRun(runId));
  return key ? new FlowDb((await host.resolveWorkflow(key)).workflow) : host.db;
}
