/**
 * @module core/engine/session
 * One execution of a run by this process: the run loop. Each turn of the loop settles the
 * completions that landed together, re-renders when a completion changed what the tree read,
 * starts what became ready, and commits all of it in one transaction before any new attempt
 * starts (DESIGN.md durability rules). See docs/engine.md.
 *
 * Why this file is longer than 500 lines: it is the engine's hot core, and every method reads
 * and writes the same in-memory state of one run (nodes, the scheduler, running attempts, the
 * write batch). Everything with a state of its own lives beside it and is called from here:
 * scheduling (scheduler.ts), waits (waits/), recovery scopes (scopes.ts), continue-as-new,
 * subflows, alerts, hot reload, agent services (attempt-services.ts), SQL (run-sql.ts).
 * Sections: the loop; rendering; scheduling; settling; ending; plumbing.
 */
import type { AgentLike } from "../agents/index.js";
import { errorToJson, FlowError, isFlowError } from "../errors.js";
import type { FlowNode, HostNode, XmlNode } from "../jsx/index.js";
import { renderNodes } from "../jsx/index.js";
import { TABLES, TAGS } from "../protocol.js";
import type { TableEntry } from "../schema/index.js";
import { cacheKeyOf } from "./cache.js";
import { createCtx, type FlowCtx } from "./ctx.js";
import type { EventInit, FlowEvent } from "./events.js";
import { type AttemptOutcome, executeAttempt } from "./execute.js";
import { adoptDescriptor, extractPlan, type Extracted } from "./extract.js";
import { patchPlan } from "./plan-patch.js";
import { frameXmlOf } from "./frame-xml.js";
import type { EncodedFrame, FrameEncoder } from "./frames.js";
import { type FrameValue, renderIncrementally, sameIterations } from "./incremental-render.js";
import { OutputIndex, type OutputRow } from "./output-index.js";
import { nodeKey, type PlanTask } from "./plan.js";
import { isRetryable, retryDelayMs } from "./retry.js";
import { type SettledUnit, SettledUnits } from "./refused-outputs.js";
import { attemptSql, cacheSql, type ClaimedFrom, eventSql, frameSql, nodeChange, outputSql, type RunStopRequest, runSql, WriteBatch } from "./run-sql.js";
import { Scheduler } from "./scheduler.js";
import { type Alert, alertEvent, AlertWatcher, deliverAlert, openAlertApproval } from "./alerts.js";
import { hotOptionsOf, watchWorkflowFile } from "./hot-reload.js";
import { type RunChild, runSubflow } from "./subflow.js";
import { AttemptServices } from "./attempt-services.js";
import { TranscriptBatch } from "./transcript-batch.js";
import { writeContinuation } from "./continue-as-new.js";
import { attachRenderView, type RenderView, type ScopeFailure } from "../jsx/index.js";
import { InstanceRecorder, RenderInstances, watchedRenderView, type WrittenRow } from "./render-instances.js";
import { ScopeFailures } from "./scopes.js";
import { activeLoop, startInnerPasses } from "./nested-loops.js";
import { AspectUsage } from "./aspect-usage.js";
import { WaitManager, type WaitHost } from "./waits/wait-manager.js";
import { waitSql } from "./waits/wait-sql.js";
import type { NodeDescriptor } from "./describe-node.js";
import { frameTaskOf } from "./snapshot.js";
import type { StoreBinding } from "../binding.js";
import { type AttemptSnapshots, attemptSnapshotsFor } from "./travel/snapshots.js";
import type { FlowWorkflow, NodeState, PauseReason, RunOptions, RunResult, RunStatus, TaskDescriptor, WorkflowOptions } from "./types.js";
import { type RunLogSink, YIELD_EVERY_MS } from "./world.js";

/** In-memory state of one node (task at one iteration). */
export interface NodeInfo {
  nodeId: string;
  iteration: number;
  state: NodeState;
  outputTable: string | null;
  continueOnFail: boolean;
  /** Attempts ever started (attempt numbers continue across resumes). */
  attempts: number;
  /** Failed attempts since the node was last reset: the retry budget. */
  failures: number;
}

/** What opening the run (session-open.ts) hands to the loop. */
export interface SessionStart {
  runId: string;
  /** The directory the run works in (absolute): recorded when it started, used by every resume. */
  rootDir: string;
  workflowName: string | null;
  input: unknown;
  auth: RunOptions["auth"];
  iterations: Record<string, number>;
  nodes: Map<string, NodeInfo>;
  index: OutputIndex;
  seq: number;
  frameNo: number;
  frames: FrameEncoder;
  batch: WriteBatch;
  events: FlowEvent[];
  /** Nodes of the stored run that the first render must still contain (else cancelled). */
  checkRemoved: boolean;
  /** A resumed run: what its claim replaced, restored if the resume is refused. */
  claimedFrom?: ClaimedFrom;
  workflowHash: string;
  /** Failures recorded on Saga / TryCatchFinally blocks. */
  scopes: Record<string, ScopeFailure>;
}

interface Running {
  task: PlanTask;
  attempt: number;
  startedAt: number;
  controller: AbortController;
  /** Set once the attempt's start is committed and its code runs. */
  started: boolean;
  /** Aborted because a hot reload removed the task (`cancelUnmounted`). */
  removed?: boolean;
}

interface Completion {
  key: string;
  outcome: AttemptOutcome;
}

export interface WorkflowParts {
  build: (ctx: FlowCtx) => FlowNode;
  opts: WorkflowOptions;
  /** The workflow object (hot reload maps a new build onto its schemas). */
  workflow?: FlowWorkflow;
  /** Starts a Subflow's child run: run.ts passes `runWorkflow` (so no import cycle). */
  runChild: RunChild;
}

export class RunSession {
  private readonly store;
  private readonly registry;
  private readonly env;
  private readonly runId: string;
  private readonly index: OutputIndex;
  private readonly nodes: Map<string, NodeInfo>;
  private readonly iterations: Record<string, number>;
  private readonly batch: WriteBatch;
  private events: FlowEvent[];
  private seq: number;
  private frameNo: number;
  private readonly frames: FrameEncoder;
  private checkRemoved: boolean;
  private workflowName: string | null;
  private readonly input: unknown;
  private readonly auth: NonNullable<RunOptions["auth"]> | null;

  private extracted: Extracted | null = null;
  private previousKeys: string[] | null = null;
  private scheduler: Scheduler | null = null;
  private readTables = new Set<string>();
  /** A render is due; `renderRows` says whether only stored rows asked for it (then it may be incremental). */
  private renderDue = true;
  private renderRows: WrittenRow[] | null = null;
  /** The component instances and frame value of the last render (incremental-render.ts). */
  private renderInstances: RenderInstances | null = null;
  private frameValue: FrameValue | null = null;
  /** A component of the last render looked at the render view (not tracked row by row). */
  private viewUsed = false;
  /** launchReady stopped for a render with tasks taken but not started: only a new plan requeues them. */
  private takenNotStarted = false;
  private lastCtx: FlowCtx | null = null;
  /** The host tree of the last render (the next one keeps the props objects of unchanged elements). */
  private lastNodes: HostNode[] | undefined;

  private get needsRender(): boolean {
    return this.renderDue;
  }

  /** Any reason but a stored row (a loop boundary, a failure, a wait, a reload): the whole tree renders. */
  private set needsRender(due: boolean) {
    this.renderDue = due;
    this.renderRows = null;
    if (!due) this.takenNotStarted = false;
  }
  private readonly running = new Map<string, Running>();
  private readonly retryTimers = new Map<string, unknown>();
  private completions: Completion[] = [];
  private readonly preflighted = new WeakSet<AgentLike>();
  private fatal: FlowError | null = null;
  private claimLost = false;
  private stopped = false;
  private wakeup: (() => void) | null = null;
  private woken = false;
  private heartbeatTimer: unknown;
  private log: RunLogSink | null = null;
  private readonly maxConcurrency: number;
  private readonly waits: WaitManager;
  private readonly scopes: ScopeFailures;
  /** Tokens and latency of tasks in Aspects blocks (the blocks read them while rendering). */
  private readonly aspectUsage = new AspectUsage();
  private readonly services: AttemptServices;
  /** Agent transcript events waiting for the next flush (empty, and free, when no agent runs). */
  private readonly transcripts: TranscriptBatch;
  private readonly snapshots: AttemptSnapshots | undefined;
  /** Retries waiting for an agent's quota to reset (they do not count as failures). */
  private readonly quotaWaits = new Set<string>();
  private quotaParked = false;
  /** The run's status as this session last wrote it (a claimed or new run starts `running`). */
  private status: RunStatus = "running";
  private readonly alerts: AlertWatcher;
  private readonly renderView: RenderView;
  private readonly workflowHash: string;
  private readonly rootDir: string;
  private build: WorkflowParts["build"];
  /** The build before the last hot reload: restored if the new one cannot render. */
  private previousBuild: WorkflowParts["build"] | undefined;
  /** A reached ContinueAsNew node (or a loop's continueAsNewEvery): the run ends here. */
  private continuation: { input?: Record<string, unknown>; carryOutputs: boolean; task?: PlanTask } | null = null;
  /** Set by an alert reaction: pause or cancel as if the caller had asked. */
  private alertStop: "pause" | "cancel" | null = null;
  /** A pause or cancel another process asked for (`requested_state`, read by the heartbeat). */
  private requestedStop: RunStopRequest | null = null;
  private stopHot: (() => void) | undefined;
  /** Approval gates of Tasks (`needsApproval`) that were approved: the task itself may run. */
  private readonly gatesPassed = new Set<string>();
  private pollWaits = false;
  private pollTimer: unknown;
  /** Settled successes of the batch not yet committed (core/engine/refused-outputs.ts). */
  private readonly settled = new SettledUnits();
  /** A resumed run's claim, given back unchanged if the resume is refused. */
  private readonly claimedFrom: ClaimedFrom | undefined;
  /** Set by the first render when this resume must not go on (WORKFLOW_MISMATCH). */
  private refusal: FlowError | null = null;
  /** Whether anything of this session has been committed (after that, nothing is refused). */
  private committedOnce = false;

  constructor(
    private readonly binding: StoreBinding,
    private readonly workflow: WorkflowParts,
    private readonly opts: RunOptions,
    start: SessionStart,
  ) {
    ({ store: this.store, registry: this.registry, env: this.env } = binding);
    this.runId = start.runId;
    this.index = start.index;
    this.nodes = start.nodes;
    this.iterations = start.iterations;
    this.batch = start.batch;
    this.events = start.events;
    this.seq = start.seq;
    this.frameNo = start.frameNo;
    this.frames = start.frames;
    this.checkRemoved = start.checkRemoved;
    this.claimedFrom = start.claimedFrom;
    this.workflowName = start.workflowName;
    this.input = start.input;
    this.auth = start.auth ?? null;
    this.maxConcurrency = Math.max(1, opts.maxConcurrency ?? 4);
    this.waits = new WaitManager(this.waitHost());
    this.scopes = new ScopeFailures(start.scopes);
    this.transcripts = new TranscriptBatch(this.env.clock, () => this.wake());
    this.services = new AttemptServices(binding, opts, this.transcripts);
    this.rootDir = start.rootDir;
    this.snapshots = attemptSnapshotsFor(binding, this.runId, this.rootDir);
    this.workflowHash = start.workflowHash;
    this.build = workflow.build;
    this.alerts = new AlertWatcher(workflow.opts.alertPolicy, this.env.clock, (alert) => this.onAlert(alert));
    this.renderView = {
      waitData: (id) => this.waits.dataOf(id),
      scopeFailure: (id) => this.scopes.get(id),
      aspectTotals: (id) => this.aspectUsage.totals(id),
      warn: (message, details, onceKey) => {
        if (this.aspectUsage.firstWarning(onceKey ?? message)) this.env.warn(`Run ${this.runId}: ${message}`, details);
      },
      nodeState: (id) => {
        let found: NodeInfo | undefined;
        for (const n of this.nodes.values()) if (n.nodeId === id && (!found || n.iteration > found.iteration)) found = n;
        return found?.state;
      },
    };
  }

  /** Runs the loop until the run finishes, fails, is cancelled or paused. */
  async execute(): Promise<RunResult> {
    const logDir = this.opts.logDir === undefined ? this.env.defaultLogDir : this.opts.logDir;
    if (logDir && this.env.openRunLog) this.log = this.env.openRunLog(logDir, this.runId);
    const onAbort = () => this.wake();
    this.opts.signal?.addEventListener("abort", onAbort);
    this.opts.pauseSignal?.addEventListener("abort", onAbort);
    this.armClaimHeartbeat();
    const wakers = (this.binding.wakers ??= new Map());
    wakers.set(this.runId, () => {
      this.pollWaits = true;
      this.wake();
    });
    this.watchHot();
    try {
      await this.waits.load();
      await this.aspectUsage.load(this.store, this.runId);
      return await this.loop();
    } finally {
      this.stopped = true;
      this.stopHot?.();
      this.alerts.stopAll();
      await this.services.settle();
      wakers.delete(this.runId);
      this.waits.stop();
      if (this.pollTimer !== undefined) this.env.clock.clearTimeout(this.pollTimer);
      this.opts.signal?.removeEventListener("abort", onAbort);
      this.opts.pauseSignal?.removeEventListener("abort", onAbort);
      this.env.clock.clearTimeout(this.heartbeatTimer);
      this.transcripts.close();
      for (const t of this.retryTimers.values()) this.env.clock.clearTimeout(t);
      await this.log?.close();
    }
  }

  private async loop(): Promise<RunResult> {
    let lastYield = this.now();
    for (;;) {
      if (this.now() - lastYield >= YIELD_EVERY_MS) {
        await this.env.yieldToHost();
        lastYield = this.now();
      }
      // Transcript events first: an attempt's last ones were pushed before its completion.
      if (this.transcripts.size) this.transcripts.drain((e) => this.emit(e));
      this.drainCompletions();
      if (this.claimLost) return this.abandon();
      if (this.cancelAsked()) return this.finishStopped("cancelled");
      if (this.fatal) return this.finishStopped("failed", this.fatal);
      if (this.needsRender) {
        try {
          this.renderAndPlan();
        } catch (error) {
          if (this.previousBuild) {
            // A hot-reloaded build that cannot render: keep running the previous one.
            this.env.warn(`Run ${this.runId}: the reloaded workflow does not render (${String(error)}); keeping the previous version.`);
            this.build = this.previousBuild;
            this.previousBuild = undefined;
            continue;
          }
          this.fatal = FlowError.from(error, "RENDER_FAILED");
          continue;
        }
        this.previousBuild = undefined;
        if (this.refusal) return this.refuse(this.refusal);
        if (this.fatal) continue;
      }
      const scheduler = this.scheduler!;
      if (this.pollWaits && this.waits.size) {
        this.pollWaits = false;
        await this.waits.poll();
      }
      if (this.quotaParked && (scheduler.readyCount > 0 || this.running.size > 0)) this.trackQuotaStatus(false);
      if (!this.paused()) await this.launchReady(scheduler);
      await this.flush();
      if (this.continuation && !this.fatal) return this.finishContinued();
      if (this.needsRender || this.fatal) continue;
      if (this.running.size === 0 && this.completions.length === 0) {
        if (scheduler.finished && this.waits.size === 0) return this.finishOk();
        if (this.paused()) return this.finishPaused();
        if (this.retryTimers.size === 0 && scheduler.readyCount === 0 && this.waits.size > 0) {
          // Only waits are left: look for deliveries, then park the run (or stay and poll).
          if (await this.waits.poll()) continue;
          await this.flush();
          if (this.needsRender || this.fatal || scheduler.readyCount > 0) continue;
          if (!this.opts.stayWhileWaiting) return this.finishParked();
          this.armPoll();
        } else if (this.retryTimers.size > 0 && scheduler.readyCount === 0) {
          this.trackQuotaStatus(true);
          await this.flush();
        } else if (this.retryTimers.size === 0 && scheduler.readyCount === 0) {
          this.fatal = new FlowError("RENDER_FAILED", `Run ${this.runId} cannot progress: tasks ${scheduler.stuck().join(", ") || "(none)"} wait on each other.`, {
            runId: this.runId,
            stuck: scheduler.stuck(),
          });
          continue;
        }
      }
      await this.waitForWake();
    }
  }

  private paused(): boolean {
    return this.opts.pauseSignal?.aborted === true || this.alertStop === "pause" || this.requestedStop === "pause";
  }

  private cancelAsked(): boolean {
    return this.opts.signal?.aborted === true || this.alertStop === "cancel" || this.requestedStop === "cancel";
  }

  // ---- rendering ----

  private renderAndPlan(): void {
    if (this.renderIncrementally()) {
      this.needsRender = false;
      return;
    }
    let planMayStay = this.planMayStay();
    for (;;) {
      // Reads that name no iteration take the node's iteration in the plan of the moment.
      const defaulted = new Map<string, number | undefined>();
      const ctx = createCtx({
        runId: this.runId,
        iteration: this.currentIteration(),
        iterations: { ...this.iterations },
        input: this.input,
        auth: this.auth,
        registry: this.registry,
        index: this.index,
        nodeIteration: (id) => {
          const iteration = this.extracted?.byNodeId.get(id)?.desc.iteration;
          defaulted.set(id, iteration);
          return iteration;
        },
      });
      this.viewUsed = false;
      attachRenderView(ctx, watchedRenderView(this.renderView, () => (this.viewUsed = true)));
      this.index.beginTracking();
      const recorder = new InstanceRecorder(this.index);
      let nodes;
      let rootReads;
      try {
        this.index.beginScope();
        let element;
        try {
          element = this.build(ctx);
        } finally {
          rootReads = this.index.endScope();
        }
        nodes = renderNodes(element, ctx, recorder, this.lastNodes);
      } finally {
        this.readTables = this.index.endTracking();
      }
      this.renderInstances = this.viewUsed ? null : new RenderInstances(rootReads, recorder.instances);
      this.lastCtx = ctx;
      const previousNodes = this.lastNodes;
      this.lastNodes = nodes;
      if (planMayStay && previousNodes && this.keepPlan(previousNodes, nodes)) return;
      planMayStay = false;
      const seed = this.opts.initialIteration ?? 0;
      const extracted = extractPlan(nodes, {
        registry: this.registry,
        iterations: this.iterations,
        seedIteration: () => seed,
        cacheByDefault: this.workflow.opts.cache === true,
        previous: this.extracted,
      });
      // This render's reads that named no iteration went to the previous plan's iterations; where
      // the new plan moved a node to another one (a loop's next pass), the components' recorded
      // reads are stale: the next render is a full one.
      for (const [id, iteration] of defaulted) {
        if ((iteration ?? ctx.iteration) !== (extracted.byNodeId.get(id)?.desc.iteration ?? ctx.iteration)) this.renderInstances = null;
      }
      const scheduler = new Scheduler({
        extracted,
        isComplete: (key) => this.isComplete(key),
        isNodeIdComplete: (id) => [...this.nodes.values()].some((n) => n.nodeId === id && this.isComplete(nodeKey(n.nodeId, n.iteration))),
        isRunning: (key) => this.running.has(key),
        isWaiting: (key) => this.retryTimers.has(key) || this.waits.has(key),
      });
      this.previousKeys = this.extracted ? [...this.extracted.byKey.keys()] : null;
      this.extracted = extracted;
      this.scheduler = scheduler;
      if (scheduler.exhausted.length) {
        const loop = scheduler.exhausted[0]!.loop!;
        this.fatal = new FlowError("LOOP_MAX_ITERATIONS", `Loop "${loop.id}" reached maxIterations (${loop.maxIterations}) without its until condition.`, {
          loopId: loop.id,
          maxIterations: loop.maxIterations,
        });
        return;
      }
      if (scheduler.boundaries.size) {
        for (const g of scheduler.boundaries) {
          const l = g.loop!;
          this.iterations[l.id] = l.iteration + 1;
          startInnerPasses(g, extracted.loops, this.iterations);
          this.emit({ type: "LoopIteration", loopId: l.id, iteration: l.iteration + 1, ...(Object.keys(l.path).length ? { path: l.path } : {}) });
          // Loop continueAsNewEvery: the next iteration starts in a fresh run.
          if (l.continueAsNewEvery && (l.iteration + 1) % l.continueAsNewEvery === 0) this.continuation = { carryOutputs: true };
        }
        runSql.iterations(this.batch, this.runId, this.iterations, this.now());
        if (this.continuation) return;
        continue;
      }
      this.afterRender(frameXmlOf(nodes, this.frameValue?.xml), extracted);
      // After a resume, Aspects blocks render again once they know their tasks' usage.
      this.needsRender = this.aspectUsage.observe(extracted.tasks);
      return;
    }
  }

  private afterRender(xml: XmlNode | null, extracted: Extracted): void {
    const rendered = xml?.kind === "element" && xml.tag === TAGS.workflow ? xml.props.name : undefined;
    if (rendered && this.workflowName && rendered !== this.workflowName && this.claimedFrom && !this.opts.force && !this.committedOnce) {
      this.refusal = new FlowError(
        "WORKFLOW_MISMATCH",
        `Run ${this.runId} belongs to workflow "${this.workflowName}", but this workflow is "${rendered}"; refusing to resume it with another workflow. Resume it with its own workflow file, start a new run, or pass force: true to run "${rendered}" under this run id.`,
        { runId: this.runId, runWorkflow: this.workflowName, workflow: rendered },
      );
      return;
    }
    if (rendered && rendered !== this.workflowName) {
      this.workflowName = rendered;
      this.batch.push(`UPDATE ${TABLES.runs} SET workflow_name = ? WHERE run_id = ?`, [this.workflowName, this.runId]);
    }
    const now = this.now();
    for (const t of extracted.tasks) {
      if (this.nodes.has(t.key)) continue;
      const d = t.desc;
      this.nodes.set(t.key, { nodeId: d.nodeId, iteration: d.iteration, state: "pending", outputTable: d.outputTable, continueOnFail: d.continueOnFail, attempts: 0, failures: 0 });
      nodeChange(this.batch, this.runId, null, { nodeId: d.nodeId, iteration: d.iteration, state: "pending", ordinal: d.ordinal, label: d.label ?? null, outputTable: d.outputTable }, now);
    }
    for (const t of extracted.tasks) {
      const n = this.nodes.get(t.key)!;
      n.continueOnFail = t.desc.continueOnFail;
    }
    // Nodes that were in the previous tree (on resume: anywhere in the stored run) and are gone
    // from this one never run: they are cancelled. Running attempts finish and keep their rows.
    if (hotOptionsOf(this.opts.hot)?.cancelUnmounted) {
      for (const [key, r] of this.running) {
        if (extracted.byKey.has(key) || r.removed) continue;
        r.removed = true;
        r.controller.abort(new FlowError("TASK_CANCELLED", `Task "${r.task.desc.nodeId}" left the workflow after a reload.`));
      }
    }
    const previous = this.checkRemoved ? this.nodes.keys() : (this.previousKeys ?? []);
    this.checkRemoved = false;
    for (const key of previous) {
      const n = this.nodes.get(key)!;
      const idle = n.state === "pending" || n.state.startsWith("waiting-");
      if (extracted.byKey.has(key) || !idle || this.running.has(key)) continue;
      this.waits.drop(key);
      const timer = this.retryTimers.get(key);
      if (timer !== undefined) {
        this.env.clock.clearTimeout(timer);
        this.retryTimers.delete(key);
      }
      this.setNode(n, "cancelled");
      this.emit({ type: "TaskCancelled", nodeId: n.nodeId, iteration: n.iteration, reason: "removed-from-tree" });
    }
    this.writeFrame(xml, extracted);
    // Waits see what this render says of them (an autoApprove condition may hold now).
    if (this.waits.refresh(extracted.byKey)) this.pollWaits = true;
  }

  /**
   * Whether a full render may keep the plan (plan-patch.ts): it is due to stored rows only
   * (the build function read them), with nothing the last plan's scheduler would not carry
   * on with, as for an incremental render.
   */
  private planMayStay(): boolean {
    const ctx = this.lastCtx;
    if (!this.renderRows || this.takenNotStarted || !this.frameValue || !this.extracted || !ctx) return false;
    if (this.waits.size || this.retryTimers.size || this.previousBuild || this.continuation) return false;
    return this.currentIteration() === ctx.iteration && sameIterations(this.iterations, ctx.iterations);
  }

  /**
   * Keeps the plan when the new tree `nodes` has the plan of `previous` (plan-patch.ts): the
   * tasks take their new descriptors and the frame is written; what extraction would add
   * (nodes, cancellations, a scheduler) is what the plan already has. False when a new plan is needed.
   */
  private keepPlan(previous: readonly HostNode[], nodes: readonly HostNode[]): boolean {
    const extracted = this.extracted!;
    const running = this.running;
    const patch = patchPlan(extracted, previous, nodes, this.registry, (t) => running.size > 0 && running.has(t.key));
    if (!patch) return false;
    extracted.tasks.forEach((task, i) => {
      const desc = patch.descs[i]!;
      if (desc.continueOnFail !== task.desc.continueOnFail) this.nodes.get(task.key)!.continueOnFail = desc.continueOnFail;
      adoptDescriptor(task, patch.els[i]!, desc);
      extracted.descriptors[desc.ordinal] = desc;
    });
    // Reads that named no iteration resolved against this same plan: the recorded reads stand.
    this.writeFrame(frameXmlOf(nodes, this.frameValue?.xml), extracted);
    this.needsRender = this.aspectUsage.observe(extracted.tasks);
    return true;
  }

  private writeFrame(xml: XmlNode | null, extracted: Extracted): void {
    this.frameValue = { xml, tasks: extracted.tasks.map(frameTaskOf) };
    this.commitFrame(this.frames.encode(this.frameValue), extracted);
  }

  /**
   * A render after stored rows only, when it can be incremental (incremental-render.ts): the
   * components that read those rows render again and the plan keeps its shape. False when the
   * whole tree must render.
   */
  private renderIncrementally(): boolean {
    const rows = this.renderRows;
    const ctx = this.lastCtx;
    if (!rows || this.takenNotStarted || !this.renderInstances || !this.frameValue || !this.extracted || !ctx) return false;
    if (this.waits.size || this.retryTimers.size || this.previousBuild || this.continuation) return false;
    if (this.currentIteration() !== ctx.iteration || !sameIterations(this.iterations, ctx.iterations)) return false;
    const patch = renderIncrementally({
      instances: this.renderInstances,
      rows,
      ctx,
      index: this.index,
      registry: this.registry,
      extracted: this.extracted,
      frame: this.frameValue,
      untrackedRead: () => this.viewUsed,
    });
    if (!patch) return false;
    for (const t of patch.tasks) this.nodes.get(t.key)!.continueOnFail = t.desc.continueOnFail;
    this.readTables = this.renderInstances.tables();
    this.commitFrame(this.frames.encodeDelta(patch.ops, this.frameValue), this.extracted);
    return true;
  }

  private commitFrame(frame: EncodedFrame | null, extracted: Extracted): void {
    if (!frame) return;
    const frameNo = ++this.frameNo;
    frameSql.insert(this.batch, this.runId, frameNo, frame.kind, frame.json, this.now());
    this.emit({ type: "FrameCommitted", frameNo, taskCount: extracted.tasks.length, keyframe: frame.kind === "key" });
  }

  /** The iteration `ctx.iteration` shows: that of the first unfinished loop in tree order. */
  private currentIteration(): number {
    const active = activeLoop(this.extracted?.loops ?? []);
    return active ? (this.iterations[active.loop!.id] ?? 0) : (this.opts.initialIteration ?? 0);
  }

  // ---- scheduling ----

  private isComplete(key: string): boolean {
    const n = this.nodes.get(key);
    return !!n && (n.state === "finished" || n.state === "skipped" || (n.state === "failed" && n.continueOnFail));
  }

  private async launchReady(scheduler: Scheduler): Promise<void> {
    for (;;) {
      const free = this.maxConcurrency - this.running.size;
      const batch = scheduler.take(Math.max(free, 0));
      if (batch.length === 0) return;
      for (const task of batch) {
        // A row stored in this pass (a cache hit, a settled wait) may change the tree: render
        // first. Tasks taken but not started are queued again by the new plan.
        if (this.fatal || this.needsRender) {
          this.takenNotStarted = true;
          return;
        }
        if (task.desc.skipIf) {
          this.setNode(this.nodes.get(task.key)!, "skipped");
          this.emit({ type: "TaskSkipped", nodeId: task.desc.nodeId, iteration: task.desc.iteration });
          scheduler.release(task);
          this.completeTask(scheduler, task);
          continue;
        }
        const node = task.desc as NodeDescriptor;
        if (node.failWith) {
          scheduler.release(task);
          this.setNode(this.nodes.get(task.key)!, "failed", node.failWith);
          this.failForGood(task, FlowError.from(node.failWith));
          continue;
        }
        if (node.continueAsNew) {
          scheduler.release(task);
          this.continuation = { ...node.continueAsNew, task };
          return;
        }
        if (node.wait && !this.gatesPassed.has(task.key)) {
          // Waiting nodes hold no concurrency slot while they wait.
          scheduler.release(task);
          await this.waits.activate(task);
          continue;
        }
        if (task.desc.cachePolicy && (await this.tryCache(scheduler, task))) continue;
        this.startAttempt(task);
      }
    }
  }

  private completeTask(scheduler: Scheduler, task: PlanTask): void {
    scheduler.complete(task);
    // A loop whose body just completed needs a render to decide: next iteration, done, or
    // (at maxIterations with onMaxReached "fail") a failure.
    if (scheduler.boundaries.size || scheduler.exhausted.length) this.needsRender = true;
  }

  private async tryCache(scheduler: Scheduler, task: PlanTask): Promise<boolean> {
    const d = task.desc;
    const entry = this.registry.resolve(d.outputTable);
    const { key } = cacheKeyOf(d, d.cachePolicy!, { runId: this.runId, workflowName: this.workflowName ?? "" }, this.lastCtx, this.registry.signature());
    const hit = await cacheSql.get(this.store, key, this.now());
    if (!hit) return false;
    const parsed = entry.schema.safeParse(JSON.parse(hit.output_json));
    if (!parsed.success) return false;
    const n = this.nodes.get(task.key)!;
    this.storeOutput(entry, d.nodeId, d.iteration, parsed.data as Record<string, unknown>);
    this.setNode(n, "finished");
    this.emit({ type: "TaskCacheHit", nodeId: d.nodeId, iteration: d.iteration, cacheKey: key });
    scheduler.release(task);
    this.completeTask(scheduler, task);
    return true;
  }

  private startAttempt(task: PlanTask): void {
    const d = task.desc;
    const n = this.nodes.get(task.key)!;
    const attempt = ++n.attempts;
    const now = this.now();
    attemptSql.start(this.batch, this.runId, d.nodeId, d.iteration, attempt, now);
    this.setNode(n, "in-progress");
    this.emit({ type: "TaskStarted", nodeId: d.nodeId, iteration: d.iteration, attempt });
    this.running.set(task.key, { task, attempt, startedAt: now, controller: new AbortController(), started: false });
  }

  /** Starts the attempts recorded by the last flush. */
  private startRecorded(): void {
    for (const [key, r] of this.running) {
      if (r.started) continue;
      r.started = true;
      this.alerts.start(key, r.task.desc.nodeId, r.task.desc.iteration);
      const d = r.task.desc;
      const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, r.controller.signal]) : r.controller.signal;
      executeAttempt({
        runId: this.runId,
        desc: d,
        attempt: r.attempt,
        schema: this.registry.resolve(d.outputTable).schema,
        deps: this.depsOf(r.task),
        clock: this.env.clock,
        signal,
        preflighted: this.preflighted,
        rootDir: this.rootDir,
        ...(this.env.workspaces ? { workspaces: this.env.workspaces } : {}),
        runSubflow: (spec, childRunId) => runSubflow(this.workflow.runChild, spec, childRunId, this.runId, this.opts.signal, this.auth, this.opts.prices),
        services: this.services,
        ...(this.snapshots ? { snapshots: this.snapshots } : {}),
      })
        .catch((error: unknown): AttemptOutcome => ({ ok: false, error: FlowError.from(error) }))
        .then((outcome) => {
          this.completions.push({ key, outcome });
          this.wake();
        });
    }
  }

  private depsOf(task: PlanTask): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, nodeId] of Object.entries(task.desc.depsNodes ?? {})) {
      const dep = this.extracted?.byNodeId.get(nodeId);
      const table = dep?.desc.outputTable ?? [...this.nodes.values()].find((n) => n.nodeId === nodeId)?.outputTable;
      if (!table) continue;
      out[name] = (dep ? this.index.get(table, nodeId, dep.desc.iteration) : undefined) ?? this.index.latest(table, nodeId);
    }
    return out;
  }

  // ---- settling ----

  private drainCompletions(): void {
    if (this.completions.length === 0) return;
    const done = this.completions;
    this.completions = [];
    for (const c of done) this.settle(c);
  }

  private settle({ key, outcome }: Completion): void {
    const r = this.running.get(key)!;
    this.running.delete(key);
    this.alerts.stop(key);
    const scheduler = this.scheduler!;
    // A re-render may have replaced the plan while the attempt ran: act on the current plan's
    // task, or on none when the task left the tree.
    const task = this.extracted?.byKey.get(key);
    if (task) scheduler.release(task);
    const d = (task ?? r.task).desc;
    const n = this.nodes.get(key)!;
    const now = this.now();
    if (outcome.ok) {
      const entry = this.registry.resolve(d.outputTable);
      const opsStart = this.batch.size;
      const eventsStart = this.events.length;
      this.storeOutput(entry, d.nodeId, d.iteration, outcome.row);
      attemptSql.settle(this.batch, this.runId, d.nodeId, d.iteration, r.attempt, "finished", now, { meta: outcome.meta, vcsPointer: outcome.vcs?.end, vcsStartPointer: outcome.vcs?.start });
      this.services.afterSuccess({ runId: this.runId, desc: d, attempt: r.attempt }, { input: outcome.input, output: outcome.row, latencyMs: now - r.startedAt });
      this.setNode(n, "finished");
      this.emit({ type: "TaskFinished", nodeId: d.nodeId, iteration: d.iteration, attempt: r.attempt, durationMs: now - r.startedAt });
      if (d.cachePolicy) {
        const { key: ck, scope } = cacheKeyOf(d, d.cachePolicy, { runId: this.runId, workflowName: this.workflowName ?? "" }, this.lastCtx, this.registry.signature());
        cacheSql.put(this.batch, ck, scope, d.nodeId, entry.tableName, outcome.row, now, d.cachePolicy.ttlMs);
      }
      this.settled.add({
        key,
        desc: d,
        attempt: r.attempt,
        tableKey: entry.key,
        tableName: entry.tableName,
        nodeId: d.nodeId,
        iteration: d.iteration,
        opsStart,
        opsEnd: this.batch.size,
        eventsStart,
        eventsEnd: this.events.length,
      });
      if (task && this.aspectUsage.record(task, outcome.meta, now - r.startedAt)) this.needsRender = true;
      if (task) this.completeTask(scheduler, task);
      return;
    }
    const error = outcome.error;
    const cancelled = isFlowError(error, "TASK_CANCELLED") && (this.cancelAsked() || this.fatal !== null || r.removed === true);
    if (cancelled) {
      attemptSql.settle(this.batch, this.runId, d.nodeId, d.iteration, r.attempt, "cancelled", now, { error: errorToJson(error), meta: outcome.meta });
      this.setNode(n, "cancelled");
      this.emit({ type: "TaskCancelled", nodeId: d.nodeId, iteration: d.iteration, attempt: r.attempt, reason: r.removed ? "removed-from-tree" : this.fatal ? "run-failed" : "run-cancelled" });
      return;
    }
    if (isFlowError(error, "AGENT_QUOTA_EXCEEDED") && task) return this.waitForQuota(task, r.attempt, error, outcome.meta);
    this.failAttempt(key, task, d, r.attempt, error, outcome.vcs?.start, outcome.meta);
  }

  /** A failed attempt: retried when its budget and the error allow, else the node fails for good. `meta`: what its agent spent. */
  private failAttempt(key: string, task: PlanTask | undefined, d: TaskDescriptor, attempt: number, error: FlowError, vcsStartPointer?: string, meta?: Record<string, unknown>): void {
    const n = this.nodes.get(key)!;
    const now = this.now();
    n.failures++;
    const willRetry = n.failures <= d.retries && isRetryable(error, d.staticPayload !== undefined && !d.agent);
    const delay = willRetry ? retryDelayMs(d.retryPolicy, n.failures) : undefined;
    attemptSql.settle(this.batch, this.runId, d.nodeId, d.iteration, attempt, "failed", now, { error: errorToJson(error), vcsStartPointer, meta });
    this.setNode(n, willRetry ? "pending" : "failed", error);
    this.emit({
      type: "TaskFailed",
      nodeId: d.nodeId,
      iteration: d.iteration,
      attempt,
      error: errorToJson(error),
      willRetry,
      ...(delay !== undefined ? { retryInMs: delay } : {}),
      continueOnFail: d.continueOnFail,
    });
    if (!task) return;
    if (willRetry) {
      if (!delay) return this.scheduler!.requeue(task);
      return this.retryLater(key, delay);
    }
    this.failForGood(task, error);
  }

  /** A success whose output row the store refused: the attempt fails instead (a fresh plan follows). */
  private unsettle(unit: SettledUnit, cause: unknown): void {
    const n = this.nodes.get(unit.key)!;
    this.index.delete(unit.tableKey, unit.nodeId, unit.iteration);
    n.state = "pending";
    this.needsRender = true;
    const task = this.extracted?.byKey.get(unit.key);
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new FlowError(
      "TASK_OUTPUT_WRITE_FAILED",
      `Task "${unit.nodeId}" of run ${this.runId} produced a row that table "${unit.tableName}" refused: ${reason}. Check the table's constraints and triggers, or what the task returns.`,
      { runId: this.runId, nodeId: unit.nodeId, iteration: unit.iteration, table: unit.tableName },
      { cause },
    );
    this.failAttempt(unit.key, task, task?.desc ?? unit.desc, unit.attempt, error);
  }

  /**
   * A node failed for good: with continueOnFail it counts as complete; inside a Saga or
   * TryCatchFinally the block records the failure and renders its recovery; else the run fails.
   */
  private failForGood(task: PlanTask, error: FlowError): void {
    if (task.desc.continueOnFail) return this.completeTask(this.scheduler!, task);
    const scopeId = this.extracted ? this.scopes.catch(task, errorToJson(error), this.extracted, this.batch, this.runId) : undefined;
    if (scopeId === undefined) {
      this.fatal ??= error;
      return;
    }
    this.emit({ type: "ScopeFailed", scopeId, error: errorToJson(error) });
    this.needsRender = true;
  }

  /** Stores a row; when the last render read its table, the tree renders again before anything else starts. */
  private storeOutput(entry: TableEntry, nodeId: string, iteration: number, row: Record<string, unknown>): void {
    outputSql.upsert(this.batch, this.store.dialect, entry, this.runId, nodeId, iteration, row);
    this.index.set(entry.key, { ...row, runId: this.runId, nodeId, iteration } as OutputRow);
    if (this.readTables.has(entry.key) && this.opts.requireRerenderOnOutputChange !== false) {
      if (!this.renderDue) {
        this.renderDue = true;
        this.renderRows = [];
      }
      this.renderRows?.push({ table: entry.key, nodeId, iteration });
    }
  }

  private setNode(n: NodeInfo, state: NodeState, error?: unknown): void {
    nodeChange(this.batch, this.runId, n.state, { nodeId: n.nodeId, iteration: n.iteration, state, attempts: n.attempts, error: error === undefined ? undefined : errorToJson(error) }, this.now());
    n.state = state;
  }

  // ---- ending ----

  /** Writes the run's next status (checked against the lifecycle table, status.ts). */
  private moveTo(to: RunStatus, extra?: Parameters<typeof runSql.status>[5]): void {
    runSql.status(this.batch, this.runId, this.status, to, this.now(), extra);
    this.status = to;
  }

  private async finishOk(): Promise<RunResult> {
    const output = this.runOutput();
    this.moveTo("finished", { output, finished: true, releaseOwner: true });
    this.emit(output === undefined ? { type: "RunFinished" } : { type: "RunFinished", output });
    await this.flush();
    return output === undefined ? { runId: this.runId, status: "finished" } : { runId: this.runId, status: "finished", output };
  }

  /**
   * Every agent of the task hit its quota: the attempt does not count as a failure; the task
   * runs again when the limit resets (`details.retryAtMs`, else a backoff), and while nothing
   * else can run the run shows `waiting-quota`.
   */
  private waitForQuota(task: PlanTask, attempt: number, error: FlowError, meta?: Record<string, unknown>): void {
    const d = task.desc;
    const now = this.now();
    const retryAt = typeof error.details?.retryAtMs === "number" ? error.details.retryAtMs : now + 60_000;
    const delay = Math.max(0, retryAt - now);
    attemptSql.settle(this.batch, this.runId, d.nodeId, d.iteration, attempt, "failed", now, { error: errorToJson(error), meta });
    this.setNode(this.nodes.get(task.key)!, "pending", error);
    this.emit({ type: "TaskFailed", nodeId: d.nodeId, iteration: d.iteration, attempt, error: errorToJson(error), willRetry: true, retryInMs: delay, continueOnFail: d.continueOnFail });
    this.quotaWaits.add(task.key);
    this.retryLater(task.key, delay);
  }

  /** Queues the node again after `delay` (in the plan current then, if it is still there to run). */
  private retryLater(key: string, delay: number): void {
    this.retryTimers.set(
      key,
      this.env.clock.setTimeout(() => {
        this.retryTimers.delete(key);
        this.quotaWaits.delete(key);
        const current = this.extracted?.byKey.get(key);
        if (current && current.active && !current.done && !this.running.has(key)) this.scheduler?.requeue(current);
        this.wake();
      }, delay),
    );
  }

  /** Shows `waiting-quota` while only quota retries are pending, and `running` again after. */
  private trackQuotaStatus(idle: boolean): void {
    const parked = idle && this.retryTimers.size > 0 && [...this.retryTimers.keys()].every((k) => this.quotaWaits.has(k));
    if (parked === this.quotaParked) return;
    this.quotaParked = parked;
    this.moveTo(parked ? "waiting-quota" : "running");
    if (parked) this.emit({ type: "RunWaiting", status: "waiting-quota", waitingOn: [...this.quotaWaits].map((k) => this.nodes.get(k)!.nodeId) });
  }

  /** Only waits are left: the run is parked, durably, and released for whoever resumes it. */
  private async finishParked(): Promise<RunResult> {
    const status = this.waits.parkStatus();
    this.moveTo(status, { releaseOwner: true });
    this.emit({ type: "RunWaiting", status, waitingOn: this.waits.waitingOn() });
    await this.flush();
    return { runId: this.runId, status };
  }

  /** Stay mode: look for deliveries from other processes every `waitPollMs`. */
  private armPoll(): void {
    if (this.pollTimer !== undefined) return;
    this.pollTimer = this.env.clock.setTimeout(() => {
      this.pollTimer = undefined;
      this.pollWaits = true;
      this.wake();
    }, this.opts.waitPollMs ?? 1000);
  }

  /** Calls `fn` with the current plan's task of the same node, if the node is still in the tree. */
  private withCurrent(task: PlanTask, fn: (current: PlanTask) => void): void {
    const current = this.extracted?.byKey.get(task.key);
    if (current) fn(current);
  }

  /** What the wait manager may do to this session. */
  private waitHost(): WaitHost {
    return {
      runId: this.runId,
      store: this.store,
      clock: this.env.clock,
      batch: this.batch,
      emit: (init) => this.emit(init),
      setState: (task, state, error) => this.setNode(this.nodes.get(task.key)!, state, error),
      storeOutput: (entry, nodeId, iteration, row) => this.storeOutput(entry, nodeId, iteration, row),
      resolveTable: (key) => this.registry.resolve(key),
      // Waits may settle after a re-render replaced the plan: act on the current plan's task.
      complete: (task) => this.withCurrent(task, (t) => this.completeTask(this.scheduler!, t)),
      passThrough: (task) => this.withCurrent(task, (t) => this.scheduler!.passThrough(t)),
      fail: (task, error) => {
        this.setNode(this.nodes.get(task.key)!, "failed", error);
        this.emit({ type: "TaskFailed", nodeId: task.desc.nodeId, iteration: task.desc.iteration, attempt: 0, error: errorToJson(error), willRetry: false, continueOnFail: task.desc.continueOnFail });
        this.withCurrent(task, (t) => this.failForGood(t, error));
      },
      runGatedTask: (task) => {
        this.gatesPassed.add(task.key);
        this.withCurrent(task, (t) => this.scheduler!.requeue(t));
      },
      requestRender: () => {
        this.needsRender = true;
      },
      wake: () => {
        this.pollWaits = true;
        this.wake();
      },
    };
  }

  /** Ends the run as `continued` and writes the next run (continue-as-new). */
  private async finishContinued(): Promise<RunResult> {
    const c = this.continuation!;
    await this.stopInFlight();
    if (c.task) this.setNode(this.nodes.get(c.task.key)!, "finished");
    const nextRunId = this.env.newId();
    writeContinuation({
      batch: this.batch,
      dialect: this.store.dialect,
      registry: this.registry,
      index: this.index,
      runId: this.runId,
      from: this.status,
      nextRunId,
      workflowName: this.workflowName,
      workflowHash: this.workflowHash,
      input: c.input ?? this.input,
      // A loop's continueAsNewEvery carries its iterations; an explicit ContinueAsNew starts afresh.
      iterations: c.carryOutputs ? this.iterations : {},
      carryOutputs: c.carryOutputs,
      auth: this.auth,
      now: this.now(),
    });
    this.emit({ type: "RunContinued", nextRunId });
    await this.flush();
    return { runId: this.runId, status: "continued", nextRunId };
  }

  private onAlert(alert: Alert): void {
    this.emit(alertEvent(alert));
    if (alert.reaction === "pause" || alert.reaction === "cancel") this.alertStop ??= alert.reaction;
    if (alert.reaction === "open-approval") openAlertApproval(this.batch, this.runId, alert, this.now());
    if (alert.reaction === "deliver") void deliverAlert(alert, this.runId, this.env.warn);
    // Alerts fire between scheduling steps: commit them now (the loop may be waiting).
    this.wake();
  }

  /** Hot reload: a new build of the workflow file is used from the next render on. */
  private watchHot(): void {
    this.stopHot = watchWorkflowFile(this.env, this.opts, this.workflow.workflow, this.runId, ({ build, generation }) => {
      this.previousBuild = this.build;
      this.build = build;
      this.needsRender = true;
      this.emit({ type: "WorkflowReloaded", generation });
      this.wake();
    });
  }

  private async finishPaused(): Promise<RunResult> {
    // A host that stops pauses with the reason "shutdown" (LocalGatewayHost.close): such a run
    // is resumed by the next host serving its workflow; any other pause waits for a person.
    const reason: PauseReason = this.alertStop !== "pause" && this.opts.pauseSignal?.reason === "shutdown" ? "shutdown" : "person";
    this.moveTo("paused", { releaseOwner: true, pauseReason: reason });
    this.emit({ type: "RunPaused", reason });
    await this.flush();
    return { runId: this.runId, status: "paused" };
  }

  /** Cancels or fails the run: in-flight attempts are aborted and recorded as cancelled first. */
  private async finishStopped(status: Extract<RunStatus, "cancelled" | "failed">, error?: FlowError): Promise<RunResult> {
    await this.stopInFlight();
    const err = error ? errorToJson(error) : undefined;
    if (status === "cancelled") {
      // Cancel closes what waits: no decision or delivery is taken any more (WAIT_CLOSED), and
      // the waiting nodes end cancelled. A retry or rewind asks again (waits/reset-waits.ts).
      for (const n of this.nodes.values()) if (n.state.startsWith("waiting-")) this.setNode(n, "cancelled");
      waitSql.close(this.batch, this.runId, this.now());
    }
    this.moveTo(status, { error: err, finished: true, releaseOwner: true });
    this.emit(status === "failed" ? { type: "RunFailed", error: err! } : { type: "RunCancelled" });
    await this.flush();
    return err ? { runId: this.runId, status, error: err } : { runId: this.runId, status };
  }

  /** The claim was taken over by another process: stop without writing the run's status. */
  /** Refuses a resume before anything of it was committed: the run row is put back as it was. */
  private async refuse(error: FlowError): Promise<never> {
    this.batch.ops.length = 0;
    this.events = [];
    await runSql.unclaim(this.store, this.runId, this.env.ownerId, this.claimedFrom!);
    throw error;
  }

  private async abandon(): Promise<RunResult> {
    for (const r of this.running.values()) r.controller.abort(new FlowError("TASK_CANCELLED", "Run claim lost."));
    throw new FlowError("RUN_CLAIM_LOST", `Run ${this.runId} was taken over by another process; this process stopped working on it.`, { runId: this.runId });
  }

  private async stopInFlight(): Promise<void> {
    for (const r of this.running.values()) r.controller.abort(new FlowError("TASK_CANCELLED", `Task "${r.task.desc.nodeId}" was cancelled.`));
    while (this.running.size > 0) {
      await this.waitForWake();
      const done = this.completions;
      this.completions = [];
      for (const c of done) {
        const r = this.running.get(c.key)!;
        this.running.delete(c.key);
        const d = r.task.desc;
        const n = this.nodes.get(c.key)!;
        // What its agent had spent counts, as for an attempt the loop settles (settle).
        attemptSql.settle(this.batch, this.runId, d.nodeId, d.iteration, r.attempt, "cancelled", this.now(), { meta: c.outcome.meta });
        this.setNode(n, "cancelled");
        const reason = this.cancelAsked() ? "run-cancelled" : this.continuation ? "run-continued" : "run-failed";
        this.emit({ type: "TaskCancelled", nodeId: d.nodeId, iteration: d.iteration, attempt: r.attempt, reason });
      }
    }
  }

  private runOutput(): unknown {
    const target = this.workflow.opts.output ?? (this.registry.entries.has("output") ? "output" : undefined);
    if (target === undefined) return undefined;
    const row = this.index.lastWritten(this.registry.resolve(target, "WorkflowOptions.output").key);
    if (!row) return undefined;
    const { runId: _r, nodeId: _n, iteration: _i, ...fields } = row;
    return fields;
  }

  // ---- plumbing ----

  private emit(init: EventInit): void {
    const event = { ...init, runId: this.runId, timestampMs: this.now(), seq: ++this.seq } as FlowEvent;
    eventSql.insert(this.batch, event);
    this.events.push(event);
  }

  /** Commits pending writes, then announces their events and starts recorded attempts. */
  private async flush(): Promise<void> {
    try {
      await this.batch.commit(this.store);
    } catch (error) {
      // core/engine/refused-outputs.ts: fail only the attempts whose rows the store refused.
      const refused = await this.settled.refused(this.store, this.batch.ops);
      if (refused.length === 0) throw error;
      this.settled.drop(this.batch.ops, this.events, refused);
      for (const { unit, cause } of refused) this.unsettle(unit, cause);
      await this.batch.commit(this.store);
    }
    this.settled.clear();
    this.committedOnce = true;
    const events = this.events;
    this.events = [];
    for (const e of events) {
      this.log?.write(JSON.stringify(e));
      try {
        this.opts.onProgress?.(e);
      } catch (error) {
        this.env.warn(`onProgress threw on ${e.type}; ignored.`, { error: String(error) });
      }
    }
    this.startRecorded();
  }

  private wake(): void {
    this.woken = true;
    const w = this.wakeup;
    this.wakeup = null;
    w?.();
  }

  private waitForWake(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeup = () => {
        this.woken = false;
        resolve();
      };
    });
  }

  private armClaimHeartbeat(): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        // A new run's row is written by its first commit: until then there is no claim to renew
        // (a slow store, IndexedDB under load, can take longer than a heartbeat to get there).
        const beat = this.committedOnce || this.claimedFrom ? await runSql.heartbeat(this.store, this.runId, this.env.ownerId, this.now()) : { requested: null };
        if (!beat) {
          this.claimLost = true;
          this.wake();
          return;
        }
        // A cancel or pause asked by another process (flow cancel, a Gateway): acted on like a signal.
        if (beat.requested && !this.requestedStop) {
          this.requestedStop = beat.requested;
          this.wake();
        }
      } catch (error) {
        this.env.warn(`Claim heartbeat of run ${this.runId} failed; retrying.`, { error: String(error) });
      }
      if (!this.stopped) this.heartbeatTimer = this.env.clock.setTimeout(tick, this.env.claimHeartbeatMs);
    };
    this.heartbeatTimer = this.env.clock.setTimeout(tick, this.env.claimHeartbeatMs);
  }

  private now(): number {
    return this.env.clock.now();
  }
}
