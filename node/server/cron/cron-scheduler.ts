/**
 * @module node/server/cron/cron-scheduler
 * The Gateway's cron scheduler (SPEC.md: a schedule writes the cron row `gateway:<key>`; the
 * poll interval is `heartbeatMs` clamped to 1-15 s; cron runs act as role `system`,
 * `triggeredBy` `cron:gateway`, scopes `["*"]`). Rows live in `_flow_crons`
 * (core/api/cron-store.ts); `cronCreate` adds more and this scheduler fires them all.
 *
 * Each firing is claimed with compare-and-set on `next_fire_at_ms` before its run starts, and
 * the run id is derived from the cron id and the slot, so gateways sharing one store start a
 * slot's run once. Missed firings: a slot is due when `next_fire_at_ms <= now`; firing it
 * moves the row to the first slot after *now*, so however many slots passed while no gateway
 * ran, one catch-up run starts (docs/hosting.md "Cron").
 */
import { type CronRow, cronStore, nextFireOf } from "../../../core/api/index.js";
import type { ClockPort, RunAuthContext } from "../../../core/engine/index.js";
import type { StorePort } from "../../../core/store/index.js";

/** The identity of cron-fired runs. */
export const CRON_TRIGGER = { triggeredBy: "cron:gateway", role: "system", scopes: ["*"] } as const;

/** The cron id a `register(key, wf, { schedule })` writes. */
export const gatewayCronId = (key: string) => `gateway:${key}`;

/** The run id of a cron's firing at `slotMs`: the same on every gateway. */
export const cronRunId = (cronId: string, slotMs: number) => `cron-${cronId.replace(/[^A-Za-z0-9_-]+/g, "-")}-${slotMs}`;

export interface CronSchedulerOptions {
  store: StorePort;
  clock: ClockPort;
  pollMs: number;
  /**
   * Whether this gateway serves `workflowKey`. Crons of other workflows are left to a gateway
   * that does (gateways sharing a store may serve different workflows).
   */
  serves(workflowKey: string): boolean;
  /** Starts run `runId` of the workflow registered as `workflowKey`. */
  launch(req: { workflowKey: string; runId: string; input: Record<string, unknown>; auth: RunAuthContext; cronId: string }): Promise<void>;
  /** Told of each failure (a workflow no longer registered, a store error); polling goes on. */
  onError(error: unknown, cronId?: string): void;
  /** Runs after each poll (the Gateway resumes runs that can progress here). */
  afterPoll?(): Promise<void>;
}

/**
 * Polls `_flow_crons` and starts the runs of due slots.
 * @example
 * const scheduler = new CronScheduler({ store, clock: systemClock, pollMs: 1000, serves: (key) => key === "nightly", launch, onError: console.error });
 * await scheduler.schedule("gateway:nightly", "nightly", "0 3 * * *", {});
 * scheduler.start();
 */
export class CronScheduler {
  private timer: unknown;
  private stopped = true;
  private polling: Promise<void> | undefined;

  constructor(private readonly opts: CronSchedulerOptions) {}

  /**
   * Writes the row of a registered schedule. An unchanged row keeps its next slot, so a slot
   * missed while no gateway ran still fires (once) on start.
   */
  async schedule(cronId: string, workflowKey: string, schedule: string, input: Record<string, unknown>): Promise<void> {
    const now = this.opts.clock.now();
    nextFireOf(schedule, now);
    const row = await cronStore.get(this.opts.store, cronId);
    const same = row && row.enabled && row.schedule === schedule && row.workflowKey === workflowKey && JSON.stringify(row.input) === JSON.stringify(input) && row.nextFireAtMs !== null;
    if (!same) await cronStore.upsert(this.opts.store, { cronId, workflowKey, schedule, input, createdBy: "gateway" }, now);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.arm(0);
  }

  /** Stops polling and waits for a poll in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /** One poll: fires every due slot once (a poll in flight is joined, not repeated). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer = this.opts.clock.setTimeout(() => {
      void this.poll().finally(() => this.arm(this.opts.pollMs));
    }, ms);
  }

  private async pollOnce(): Promise<void> {
    const now = this.opts.clock.now();
    let due: CronRow[] = [];
    try {
      due = (await cronStore.list(this.opts.store)).filter((c) => c.enabled && c.nextFireAtMs !== null && c.nextFireAtMs <= now && this.opts.serves(c.workflowKey));
    } catch (error) {
      this.opts.onError(error);
    }
    for (const cron of due) {
      if (this.stopped) return;
      await this.fire(cron, now).catch((error: unknown) => this.opts.onError(error, cron.cronId));
    }
    if (!this.stopped) await this.opts.afterPoll?.().catch((error: unknown) => this.opts.onError(error));
  }

  private async fire(cron: CronRow, now: number): Promise<void> {
    const slot = cron.nextFireAtMs!;
    const runId = cronRunId(cron.cronId, slot);
    const won = await cronStore.recordFiring(this.opts.store, cron.cronId, { runId, firedAtMs: now, nextFireAtMs: nextFireOf(cron.schedule, now), expectedNextFireAtMs: slot });
    if (!won) return;
    const auth: RunAuthContext = { ...CRON_TRIGGER, scopes: [...CRON_TRIGGER.scopes], createdAt: new Date(now).toISOString() };
    await this.opts.launch({ workflowKey: cron.workflowKey, runId, input: cron.input, auth, cronId: cron.cronId });
  }
}
