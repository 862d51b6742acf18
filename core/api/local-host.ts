/**
 * @module core/api/local-host
 * `LocalGatewayHost`: a `GatewayHost` that executes runs in this process with `runWorkflow`,
 * over the store of its workflows. It runs anywhere the engine runs (Node, a Web Worker over
 * PGlite): the Node server, the serve app and the Gateway build on it. See docs/hosting.md.
 */
import { ANNOTATIONS } from "./contract.js";
import {
  bindingOf,
  FlowDb,
  listRunsToWake,
  type RunRecord,
  runWorkflow,
  systemClock,
  workflowNameOf,
} from "../engine/index.js";
import type { FlowEvent, FlowWorkflow, RunOptions, RunResult, RunStatus } from "../engine/index.js";
import { errorToJson, FlowError, isFlowError } from "../errors.js";
import { ChangeFeed, type DomainChange } from "./change-feed.js";
import { ENDING_EVENT_TYPES, executingHere } from "./executing-here.js";
import type { ActiveRun, GatewayHost, RegisteredWorkflow, ResumeRunOptions, StartRunRequest, Unsubscribe } from "./host.js";
import { RunEventHub } from "./run-event-hub.js";

/**
 * The run annotation that records which workflow key a hosted run belongs to: `ANNOTATIONS.workflow`
 * (core/protocol.ts), under the name `durable-flow` has exported it by.
 * @example
 * (await new FlowDb(api.db).requireRun(runId)).annotations?.[WORKFLOW_ANNOTATION]; // "review"
 */
export const WORKFLOW_ANNOTATION = ANNOTATIONS.workflow;

/** Options of `LocalGatewayHost`. */
export interface LocalGatewayHostOptions {
  /** Workflows by key (more can be added with `register`). */
  workflows?: Record<string, FlowWorkflow>;
  /** The store runs are read from: a `FlowDb` or a factory's `db` handle (default: the first workflow's store). */
  db?: FlowDb | object;
  /** Loads a workflow the registry does not have (the server loads files by path); undefined = unknown. */
  loadWorkflow?: (key: string) => Promise<FlowWorkflow | undefined>;
  /** Options given to every run this host starts or resumes (rootDir, allowNetwork, logDir, ...); aborting `signal` cancels them. */
  runDefaults?: Partial<RunOptions>;
  /** Poll the event log of subscribed runs every this many ms (for runs another process executes). */
  eventPollMs?: number;
  /** Changes kept for `Last-Event-ID` resume of the change stream (default 1000). */
  changeFeedSize?: number;
}

/**
 * A host that runs workflows in this process.
 * @example
 * const host = new LocalGatewayHost({ workflows: { review } });
 * const { runId } = await host.startRun({ workflowKey: "review", input: { repo: "." } });
 * await host.activeRun(runId)?.done;
 */
export class LocalGatewayHost implements GatewayHost {
  readonly changes: ChangeFeed;
  readonly hasDb: boolean;
  private readonly registry = new Map<string, RegisteredWorkflow>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly hub: RunEventHub;
  private readonly opts: LocalGatewayHostOptions;
  private explicitDb: FlowDb | undefined;
  private firstDb: FlowDb | undefined;

  constructor(opts: LocalGatewayHostOptions = {}) {
    this.opts = opts;
    this.hasDb = opts.db !== undefined;
    if (opts.db !== undefined) this.explicitDb = opts.db instanceof FlowDb ? opts.db : new FlowDb(opts.db);
    for (const [key, workflow] of Object.entries(opts.workflows ?? {})) this.register(key, workflow);
    const clock = this.clockOf();
    this.hub = new RunEventHub({ clock, ...(opts.eventPollMs !== undefined ? { pollMs: opts.eventPollMs } : {}) });
    this.changes = new ChangeFeed({ now: () => clock.now(), ...(opts.changeFeedSize !== undefined ? { capacity: opts.changeFeedSize } : {}) });
  }

  get db(): FlowDb {
    const db = this.explicitDb ?? this.firstDb;
    if (!db) throw new FlowError("NOT_AVAILABLE", "This host has no store yet: pass `db`, or register (or start) a workflow first.");
    return db;
  }

  now(): number {
    return this.clockOf().now();
  }

  /** Adds (or replaces) a workflow under `key`. */
  register(key: string, workflow: FlowWorkflow): this {
    if (!key) throw new FlowError("INVALID_ARGUMENT", "A workflow needs a non-empty key.");
    const db = new FlowDb(workflow);
    this.warnIfElsewhere(key, db);
    this.firstDb ??= db;
    this.registry.set(key, { key, workflow });
    this.changes?.publish({ collection: "workflows", reason: "register" });
    return this;
  }

  /**
   * Every read of this host (runs, events, approvals) goes to one store: `db`, or the first
   * workflow's. A workflow that keeps its runs in another would run, but its runs would not be
   * found (a console showed "Run not found" for the run it had just launched). Said when it is
   * registered, where both stores say where they are.
   */
  private warnIfElsewhere(key: string, db: FlowDb): void {
    const reading = this.explicitDb ?? this.firstDb;
    if (!reading || reading.binding.store === db.binding.store) return;
    const [here, there] = [reading.binding.store.location, db.binding.store.location];
    if (!here || !there || here === there) return;
    db.binding.env.warn(
      `Workflow "${key}" keeps its runs in ${there}, but this host reads runs from ${here}: its runs would not be found through the host (its API, console and approvals). Give it the same store (the same dbPath, or openFlowBackend), or serve it from a host of its own.`,
      { workflow: key, store: there, hostStore: here },
    );
  }

  listWorkflows(): RegisteredWorkflow[] {
    return [...this.registry.values()];
  }

  async resolveWorkflow(key: string): Promise<RegisteredWorkflow> {
    const known = this.registry.get(key);
    if (known) return known;
    const loaded = await this.opts.loadWorkflow?.(key);
    if (loaded) {
      this.register(key, loaded);
      return this.registry.get(key)!;
    }
    throw new FlowError("WORKFLOW_NOT_FOUND", `No workflow is registered as "${key}"; registered: ${[...this.registry.keys()].join(", ") || "none"}.`, { workflow: key });
  }

  workflowKeyOf(run: RunRecord): string | undefined {
    const annotated = run.annotations?.[ANNOTATIONS.workflow];
    if (typeof annotated === "string" && this.registry.has(annotated)) return annotated;
    if (typeof annotated === "string" && this.opts.loadWorkflow) return annotated;
    // A run another process started (flow up, another Gateway) is known by its workflow's name.
    if (run.workflowName === null) return undefined;
    for (const { key, workflow } of this.registry.values()) if (workflowNameOf(workflow, bindingOf(workflow), run.input) === run.workflowName) return key;
    return undefined;
  }

  async startRun(req: StartRunRequest): Promise<{ runId: string }> {
    const { key, workflow } = await this.resolveWorkflow(req.workflowKey);
    const runId = req.runId ?? this.newId(workflow);
    const annotations = { ...req.annotations, [ANNOTATIONS.workflow]: key };
    await this.launch(key, workflow, { ...req.options, runId, input: req.input, auth: req.auth ?? null, annotations });
    return { runId };
  }

  async resumeRun(runId: string, opts: ResumeRunOptions = {}): Promise<{ runId: string; status: RunStatus }> {
    // A session that is closing (it published the run's end: paused, finished...) is waited for: the resume is for after it.
    if (await executingHere(this, runId)) return { runId, status: "running" };
    const run = await this.db.requireRun(runId);
    const key = this.workflowKeyOf(run);
    if (!key) throw new FlowError("WORKFLOW_NOT_FOUND", `Run ${runId} is of workflow "${run.workflowName ?? "unnamed"}", which this host does not serve; register it to resume the run.`, { runId });
    const { workflow } = await this.resolveWorkflow(key);
    await this.launch(key, workflow, { runId, resume: true, ...(opts.force ? { force: true } : {}), ...(opts.auth !== undefined ? { auth: opts.auth } : {}) }, opts.cancel === true);
    const after = await this.db.getRun(runId);
    return { runId, status: after?.status ?? run.status };
  }

  activeRun(runId: string): ActiveRun | undefined {
    return this.active.get(runId);
  }

  /** Runs this host executes now. */
  activeRuns(): ActiveRun[] {
    return [...this.active.values()];
  }

  async wakeRuns(runId?: string): Promise<string[]> {
    const candidates = runId === undefined ? await listRunsToWake(this.db) : [runId];
    const woken: string[] = [];
    for (const id of candidates) {
      const active = this.active.get(id);
      if (active) {
        // The run's session may be parking right now, past the point where it looks for
        // deliveries: once it has stopped, wake it again if a delivery is still waiting, so a
        // decision never sits until the next periodic wake.
        if (runId !== undefined) void active.done.then(() => this.wakeIfDue(id)).catch(() => undefined);
        continue;
      }
      const run = await this.db.getRun(id);
      if (!run || !run.status.startsWith("waiting-") || !this.workflowKeyOf(run)) continue;
      try {
        await this.resumeRun(id);
        woken.push(id);
      } catch (error) {
        // Another process may have claimed it first; it will run there.
        if (!(error instanceof FlowError && error.code === "RUN_ALREADY_RUNNING")) throw error;
      }
    }
    return woken;
  }

  private async wakeIfDue(runId: string): Promise<void> {
    if (!this.active.has(runId) && (await listRunsToWake(this.db, { runId })).length) await this.wakeRuns(runId);
  }

  subscribeRunEvents(runId: string, afterSeq: number, onEvent: (event: FlowEvent) => void): Promise<Unsubscribe> {
    return this.hub.subscribe(this.active.get(runId)?.db ?? this.db, runId, afterSeq, onEvent);
  }

  publishRunEvent(event: FlowEvent): void {
    this.hub.publish(event);
    this.changes.publish(changeOf(event));
    // A cancel closes the run's waits: inboxes drop its approvals.
    if (event.type === "ApprovalRequested" || event.type === "ApprovalDecided" || event.type === "RunCancelled") this.changes.publish({ collection: "approvals", runId: event.runId, reason: event.type });
  }

  /** Live run-event subscriptions (for metrics). */
  get subscriptionCount(): number {
    return this.hub.size;
  }

  /**
   * Pauses every active run (they park as `paused` with the reason `shutdown`: the next host
   * serving their workflow resumes them, see pick-up.ts) and waits for them to stop;
   * `cancel: true` cancels them instead.
   */
  async close(opts: { cancel?: boolean } = {}): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) (opts.cancel ? run.cancel() : run.pause("shutdown"));
    await Promise.all(runs.map((r) => r.done));
  }

  /**
   * Starts `runWorkflow` in the background. Resolves once the run has committed its first
   * events (its row exists), or rejects when it fails to open (INPUT_INVALID, RUN_EXISTS, ...).
   */
  private launch(key: string, workflow: FlowWorkflow, options: RunOptions, cancelled = false): Promise<void> {
    const runId = options.runId!;
    // Check and claim the slot in one synchronous step: two deliveries waking one parked run
    // at once must not start two sessions (nor lose track of the one that runs).
    if (this.active.has(runId)) return Promise.reject(new FlowError("RUN_ALREADY_RUNNING", `Run ${runId} is already running in this host.`, { runId }));
    const cancel = new AbortController();
    if (cancelled) cancel.abort();
    const pause = new AbortController();
    let opened!: () => void;
    let closing = false;
    let failedToOpen!: (error: unknown) => void;
    const started = new Promise<void>((resolve, reject) => {
      opened = resolve;
      failedToOpen = reject;
    });
    let sawEvent = false;
    const defaults = this.opts.runDefaults ?? {};
    // A `signal` in runDefaults (the serve app's shared controller) cancels every run it hosts.
    if (defaults.signal?.aborted) cancel.abort();
    else defaults.signal?.addEventListener("abort", () => cancel.abort(), { once: true });
    // A resumed run works in the directory it recorded, not in this host's default rootDir.
    const { rootDir: _rootDir, ...resumeDefaults } = defaults;
    const done: Promise<RunResult> = runWorkflow(workflow, {
      ...(options.resume ? resumeDefaults : defaults),
      ...options,
      signal: cancel.signal,
      pauseSignal: pause.signal,
      onProgress: (event) => {
        if (event.runId === runId && ENDING_EVENT_TYPES.has(event.type)) closing = true;
        if (!sawEvent) {
          sawEvent = true;
          opened();
        }
        this.publishRunEvent(event);
        defaults.onProgress?.(event);
      },
    }).then(
      (result) => {
        opened();
        return result;
      },
      (error: unknown) => {
        if (!sawEvent) failedToOpen(error);
        return { runId, status: "failed" as const, error: errorToJson(error) };
      },
    );
    const active: ActiveRun = {
      runId,
      workflowKey: key,
      db: new FlowDb(workflow),
      cancel: () => cancel.abort(),
      pause: (reason) => pause.abort(reason ?? "person"),
      done,
      get closing() {
        return closing;
      },
    };
    this.active.set(runId, active);
    void done.then((result) => {
      if (this.active.get(runId) === active) this.active.delete(runId);
      if (result.status === "continued" && result.nextRunId) this.takeContinuation(runId, result.nextRunId);
    });
    return started;
  }

  /**
   * Continue-as-new wrote the next run without an owner: this host runs it now. Left to the next
   * pick-up (a Gateway's poll, up to 15 s), it would read meanwhile as running with its owner gone.
   */
  private takeContinuation(runId: string, nextRunId: string): void {
    this.resumeRun(nextRunId).catch((error: unknown) => {
      // Another host claimed it first: it runs there.
      if (!isFlowError(error, "RUN_ALREADY_RUNNING")) this.db.binding.env.warn(`Run ${runId} continued as ${nextRunId}, which could not start here: ${(error as Error).message}`, { runId, nextRunId });
    });
  }

  private newId(workflow: FlowWorkflow): string {
    return new FlowDb(workflow).binding.env.newId();
  }

  private clockOf() {
    return (this.explicitDb ?? this.firstDb)?.binding.env.clock ?? systemClock;
  }
}

function changeOf(event: FlowEvent): Omit<DomainChange, "id" | "atMs"> {
  return { collection: "runs", runId: event.runId, reason: event.type };
}
