/**
 * @module node/server/gateway-host
 * The Gateway's `GatewayHost`: part A's `LocalGatewayHost` (runs in this process, over the
 * store of the registered workflows) with the out-of-process event bridge wired into run-event
 * subscriptions, and the restart pick-up of orphaned runs. See docs/hosting.md "Gateway".
 */
import type { Unsubscribe } from "../../core/api/index.js";
import type { HijackPlanSummary, HijackRequest } from "../../core/api/internal.js";
import { LocalGatewayHost, pickUpRuns } from "../../core/api/index.js";
import type { FlowEvent } from "../../core/engine/index.js";
import { planHijack } from "../agents/index.js";
import type { EventBridge } from "./event-bridge.js";

/** A LocalGatewayHost whose run subscriptions also follow runs executed by other processes. */
export class GatewayRunHost extends LocalGatewayHost {
  /** Set once the gateway listens with the bridge enabled. */
  bridge: EventBridge | undefined;

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

  /** The command that reopens a node's CLI-agent session (node/agents/cli/hijack.ts), where the session ran. */
  async planHijack(req: HijackRequest): Promise<HijackPlanSummary> {
    return planHijack(this.db, req);
  }

  override publishRunEvent(event: FlowEvent): void {
    this.bridge?.noteEvent(event);
    super.publishRunEvent(event);
  }

  /**
   * Restart pick-up (core/api/pick-up.ts): resumes runs left `running` by an owner that is gone
   * and parked runs that can continue now; runs of other workflows and of live owners are left alone.
   */
  async pickUpRuns(): Promise<string[]> {
    return pickUpRuns(this, "Gateway");
  }
}
