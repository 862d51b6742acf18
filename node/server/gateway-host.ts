/**
 * @module node/server/gateway-host
 * The Gateway's `GatewayHost`: part A's `LocalGatewayHost` (runs in this process, over the
 * store of the registered workflows) with the out-of-process event bridge wired into run-event
 * subscriptions, and the restart pick-up of orphaned runs. See docs/hosting.md "Gateway".
 */
import type { Unsubscribe } from "../../core/api/host.js";
import { LocalGatewayHost, type LocalGatewayHostOptions } from "../../core/api/local-host.js";
import type { FlowEvent } from "../../core/engine/events.js";
import { isFlowError } from "../../core/errors.js";
import type { EventBridge } from "./event-bridge.js";

/** A LocalGatewayHost whose run subscriptions also follow runs executed by other processes. */
export class GatewayRunHost extends LocalGatewayHost {
  /** Set once the gateway listens with the bridge enabled. */
  bridge: EventBridge | undefined;

  constructor(opts: LocalGatewayHostOptions) {
    super(opts);
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
      const run = await this.db.getRun(row.run_id);
      if (!run || !this.workflowKeyOf(run)) continue;
      try {
        await this.resumeRun(row.run_id);
        resumed.push(row.run_id);
      } catch (error) {
        // Another gateway took it first.
        if (!isFlowError(error, "RUN_ALREADY_RUNNING")) throw error;
      }
    }
    return [...resumed, ...(await this.wakeRuns())];
  }
}
