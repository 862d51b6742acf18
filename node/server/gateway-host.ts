/**
 * @module node/server/gateway-host
 * The Gateway's `GatewayHost`: part A's `LocalGatewayHost` (runs in this process, over the
 * store of the registered workflows) with the out-of-process event bridge wired into run-event
 * subscriptions, and the restart pick-up of orphaned runs. See docs/hosting.md "Gateway".
 */
import type { HijackPlanSummary, HijackRequest, Unsubscribe } from "../../core/api/host.js";
import { LocalGatewayHost, type LocalGatewayHostOptions } from "../../core/api/local-host.js";
import type { FlowEvent } from "../../core/engine/events.js";
import { listRunsToWake } from "../../core/engine/waits/deliver.js";
import { isFlowError } from "../../core/errors.js";
import { planHijack } from "../agents/cli/hijack.js";
import type { EventBridge } from "./event-bridge.js";

/** A LocalGatewayHost whose run subscriptions also follow runs executed by other processes. */
export class GatewayRunHost extends LocalGatewayHost {
  /** Set once the gateway listens with the bridge enabled. */
  bridge: EventBridge | undefined;

  /** Where CLI-agent sessions run: the gateway's workspace. */
  private readonly workspaceRoot: string | undefined;

  constructor(opts: LocalGatewayHostOptions) {
    super(opts);
    this.workspaceRoot = opts.runDefaults?.rootDir;
  }

  override async subscribeRunEvents(runId: string, afterSeq: number, onEvent: (event: FlowEvent) => void): Promise<Unsubscribe> {
    let last = afterSeq;
    const unsubscribe = await super.subscribeRunEvents(runId, afterSeq, (e) => {
      last = e.seq ?? last;
      onEvent(e);
    });
    const unwatch = this.bridge?.watch(runId, last);
    return () => {
      unsubscribe();
      unwatch?.();
    };
  }

  /** The command that reopens a node's CLI-agent session (node/agents/cli/hijack.ts), in the gateway's workspace. */
  async planHijack(req: HijackRequest): Promise<HijackPlanSummary> {
    return planHijack(this.db, { ...req, ...(this.workspaceRoot ? { cwd: this.workspaceRoot } : {}) });
  }

  override publishRunEvent(event: FlowEvent): void {
    this.bridge?.noteEvent(event);
    super.publishRunEvent(event);
  }

  /**
   * Restart pick-up: resumes runs left `running` by an owner that is gone (a dead pid on this
   * host, or a claim heartbeat older than the store's `claimStaleMs`) and parked runs that can
   * continue now (a timer or timeout is due, or a delivery waits). Runs of workflows this
   * gateway does not serve, and runs a live process owns, are left alone.
   */
  async pickUpRuns(): Promise<string[]> {
    const env = this.db.binding.env;
    const now = env.clock.now();
    const rows = await this.db.store.query<{ run_id: string; owner_id: string | null; heartbeat_at_ms: unknown }>(
      `SELECT run_id, owner_id, heartbeat_at_ms FROM _flow_runs WHERE status = 'running' ORDER BY updated_at_ms`,
    );
    const resumed: string[] = [];
    for (const row of rows) {
      if (this.activeRun(row.run_id) || row.owner_id === env.ownerId) continue;
      const heartbeat = row.heartbeat_at_ms === null ? null : Number(row.heartbeat_at_ms);
      const gone = row.owner_id === null || env.isOwnerAlive?.(row.owner_id) === false || heartbeat === null || now - heartbeat >= env.claimStaleMs;
      if (!gone) continue;
      const pickUp = async () => {
        const run = await this.db.getRun(row.run_id);
        return run && this.workflowKeyOf(run) ? this.resumeRun(row.run_id) : [];
      };
      if (await this.resumeQuietly(row.run_id, pickUp)) resumed.push(row.run_id);
    }
    for (const runId of await listRunsToWake(this.db)) {
      if (await this.resumeQuietly(runId, () => this.wakeRuns(runId))) resumed.push(runId);
    }
    return resumed;
  }

  /**
   * Resumes one run for the pick-up; a run another gateway took first is skipped, and a run
   * that cannot resume (its workflow changed and refuses, its input no longer fits, ...) is
   * reported and skipped, so one bad run never stops a gateway from starting.
   */
  private async resumeQuietly(runId: string, resume: () => Promise<unknown>): Promise<boolean> {
    // `resume` answers [] (nothing to do: not this gateway's workflow, nothing to wake) or what it resumed.
    try {
      const result = await resume();
      return !Array.isArray(result) || result.length > 0;
    } catch (error) {
      if (!isFlowError(error, "RUN_ALREADY_RUNNING")) this.db.binding.env.warn(`Gateway: run ${runId} could not be picked up: ${(error as Error).message}`, { runId });
      return false;
    }
  }
}
