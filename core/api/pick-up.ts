/**
 * @module core/api/pick-up
 * The pick-up of orphaned runs by a host that (re)starts: runs left `running` by an owner that
 * is gone (the env says it is dead, or its claim heartbeat is older than `claimStaleMs`), runs
 * paused because their host stopped (`pause_reason = 'shutdown'`: shutdown is not a decision)
 * and parked runs that can continue now (a timer or timeout is due, a delivery waits). A run a
 * person paused, or a rewound run (`pause_reason = 'rewind'`), waits for a person's resume. The Gateway
 * calls it when it listens and after every scheduler poll; the engine worker in a browser calls
 * it when its tab becomes the leader (its env counts every other owner as gone, since only the
 * leader runs an engine). See docs/hosting.md "Gateway" and docs/app-browser.md.
 */
import { listRunsToWake } from "../engine/index.js";
import { isFlowError } from "../errors.js";
import type { LocalGatewayHost } from "./local-host.js";
import { TABLES } from "../protocol.js";

/**
 * Resumes the runs `host` should take over; answers their ids. Runs of workflows the host does
 * not serve, and runs a live owner holds, are left alone; a run that cannot resume is reported
 * (`env.warn`, prefixed with `label`) and skipped, so one bad run never stops a host from starting.
 * @example
 * const resumed = await pickUpRuns(host, "Gateway"); // ["3f0c…"]
 */
export async function pickUpRuns(host: LocalGatewayHost, label = "Flow"): Promise<string[]> {
  const { db } = host;
  const env = db.binding.env;
  const now = env.clock.now();
  const rows = await db.store.query<{ run_id: string; status: string; owner_id: string | null; heartbeat_at_ms: unknown }>(
    `SELECT run_id, status, owner_id, heartbeat_at_ms FROM ${TABLES.runs} WHERE status = 'running' OR (status = 'paused' AND pause_reason = 'shutdown') ORDER BY updated_at_ms`,
  );
  const resumed: string[] = [];
  for (const row of rows) {
    if (host.activeRun(row.run_id) || row.owner_id === env.ownerId) continue;
    const heartbeat = row.heartbeat_at_ms === null ? null : Number(row.heartbeat_at_ms);
    const gone = row.status === "paused" || row.owner_id === null || env.isOwnerAlive?.(row.owner_id) === false || heartbeat === null || now - heartbeat >= env.claimStaleMs;
    if (!gone) continue;
    const pickUp = async () => {
      const run = await db.getRun(row.run_id);
      return run && host.workflowKeyOf(run) ? host.resumeRun(row.run_id) : [];
    };
    if (await resumeQuietly(host, label, row.run_id, pickUp)) resumed.push(row.run_id);
  }
  for (const runId of await listRunsToWake(db)) {
    if (await resumeQuietly(host, label, runId, () => host.wakeRuns(runId))) resumed.push(runId);
  }
  return resumed;
}

/**
 * Resumes one run for the pick-up; a run another host took first is skipped, and a run that
 * cannot resume (its workflow changed and refuses, its input no longer fits, ...) is reported
 * and skipped. `resume` answers [] (nothing to do: not this host's workflow, nothing to wake)
 * or what it resumed. `label` names the host in the warning.
 */
async function resumeQuietly(host: LocalGatewayHost, label: string, runId: string, resume: () => Promise<unknown>): Promise<boolean> {
  try {
    const result = await resume();
    return !Array.isArray(result) || result.length > 0;
  } catch (error) {
    if (!isFlowError(error, "RUN_ALREADY_RUNNING")) host.db.binding.env.warn(`${label}: run ${runId} could not be picked up: ${(error as Error).message}`, { runId });
    return false;
  }
}
