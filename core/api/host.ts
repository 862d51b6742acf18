/**
 * @module core/api/host
 * `GatewayHost`: what the domain API's handlers need from the process that hosts them — the
 * registered workflows, the store, starting and steering runs, run-event subscriptions and the
 * change feed. `LocalGatewayHost` (core/api/local-host.ts) implements it over any store, so
 * the Node server, the Gateway and the browser worker (over PGlite) share one implementation.
 * See docs/hosting.md.
 */
import type {
  FlowDb,
  FlowEvent,
  FlowWorkflow,
  RunAuthContext,
  RunOptions,
  RunRecord,
  RunResult,
  RunStatus,
} from "../engine/index.js";
import type { ChangeFeed } from "./change-feed.js";

/** A workflow the host serves, under its key. */
export interface RegisteredWorkflow {
  key: string;
  workflow: FlowWorkflow;
}

/** What `startRun` starts. */
export interface StartRunRequest {
  /** The key of a registered workflow (or whatever the host resolves, e.g. a file path). */
  workflowKey: string;
  input: Record<string, unknown>;
  /** Default: a fresh id. */
  runId?: string;
  /** `ctx.auth` of the run (null: anonymous). */
  auth?: RunAuthContext | null;
  /** Recorded with the run (the host adds `flow:workflow`). */
  annotations?: Record<string, string | number | boolean>;
  /** Further run options (maxConcurrency, config, ...). */
  options?: Partial<Omit<RunOptions, "runId" | "input" | "auth" | "signal" | "pauseSignal" | "resume">>;
}

/** Options of `GatewayHost.resumeRun`. */
export interface ResumeRunOptions {
  auth?: RunAuthContext | null;
  force?: boolean;
  cancel?: boolean;
}

/** A run this host is executing now. */
export interface ActiveRun {
  runId: string;
  workflowKey: string;
  /** The store of the run's workflow (deliveries through it wake the session at once). */
  db: FlowDb;
  /** Cancels the run (status `cancelled`). */
  cancel(): void;
  /**
   * Pauses the run: nothing new starts, in-flight tasks finish, status `paused`. `shutdown`:
   * the host is stopping (the next host serving the workflow resumes it); default a person's pause.
   */
  pause(reason?: "shutdown"): void;
  /** Settles with the run's result. Never rejects: a failure to run is a `failed` result. */
  done: Promise<RunResult>;
  /**
   * True once the session has published the run's end (finished, failed, cancelled, paused,
   * continued): it is closing, and `done` settles soon. Absent where the host cannot tell.
   */
  readonly closing?: boolean;
}

/** Stops a subscription. */
export type Unsubscribe = () => void;

/**
 * Event types after which a run emits no more events (unless rewound or resumed by hand).
 * @example
 * if (TERMINAL_EVENT_TYPES.has(event.type)) stream.end();
 */
export const TERMINAL_EVENT_TYPES: ReadonlySet<FlowEvent["type"]> = new Set(["RunFinished", "RunFailed", "RunCancelled", "RunContinued"]);

/**
 * The host of a domain API. Everything async may throw FlowError (RUN_NOT_FOUND,
 * WORKFLOW_NOT_FOUND, ...); the handler turns it into an error envelope.
 * @example
 * const host: GatewayHost = new LocalGatewayHost({ workflows: { review } });
 * const { runId } = await host.startRun({ workflowKey: "review", input: { repo: "." } });
 */
export interface GatewayHost {
  /** The store runs are read from (all registered workflows share it). */
  readonly db: FlowDb;
  /** Whether `db` was configured explicitly (the plain server lists runs and approvals only then). */
  readonly hasDb: boolean;
  /** The change feed behind `GET /v1/api/stream`. */
  readonly changes: ChangeFeed;
  /** The host's clock (ms since epoch). */
  now(): number;
  /** Registered workflows, in registration order. */
  listWorkflows(): RegisteredWorkflow[];
  /** A workflow by key; throws WORKFLOW_NOT_FOUND (hosts may load it on demand, e.g. by path). */
  resolveWorkflow(key: string): Promise<RegisteredWorkflow>;
  /** The key of the workflow a stored run belongs to, when this host serves it. */
  workflowKeyOf(run: RunRecord): string | undefined;
  /** Starts a run in the background; resolves with its id once the run row exists. */
  startRun(req: StartRunRequest): Promise<{ runId: string }>;
  /**
   * Resumes a stored run in the background (a parked, paused, failed or orphaned run).
   * `cancel: true` resumes it only to cancel it durably (a parked run has no session to abort).
   */
  resumeRun(runId: string, opts?: ResumeRunOptions): Promise<{ runId: string; status: RunStatus }>;
  /** The run if this host executes it now. */
  activeRun(runId: string): ActiveRun | undefined;
  /**
   * Resumes parked runs that can progress now (a delivery arrived, a deadline passed): the one
   * given, or every run `listRunsToWake` finds. Runs already active or of unregistered
   * workflows are left alone. Resolves with the ids it resumed.
   */
  wakeRuns(runId?: string): Promise<string[]>;
  /**
   * Calls `onEvent` with the run's stored events after `afterSeq` (in seq order), then with
   * live ones, each seq exactly once. Resolves once the stored events were delivered.
   */
  subscribeRunEvents(runId: string, afterSeq: number, onEvent: (event: FlowEvent) => void): Promise<Unsubscribe>;
  /** Feeds an event of a run executed elsewhere (the out-of-process bridge) to subscribers. */
  publishRunEvent(event: FlowEvent): void;
  /**
   * The command that reopens a node's CLI-agent session for a person (hosts that run CLI
   * agents: the Node Gateway). Absent: `hijackRun` answers NOT_AVAILABLE.
   */
  planHijack?(req: HijackRequest): Promise<HijackPlanSummary>;
}

/** What `hijackRun` asks of a host. */
export interface HijackRequest {
  runId: string;
  nodeId: string;
  iteration?: number;
}

/** A hijack plan as the API answers it: the command a person runs to take the session over. */
export interface HijackPlanSummary {
  runId: string;
  nodeId: string;
  iteration: number;
  /** The attempt whose session is taken over. */
  attempt: number;
  /** The CLI agent's engine (`claude-code`, `codex`, ...). */
  engine: string;
  sessionId: string;
  /** Where the session runs. */
  cwd: string;
  /** The interactive command that reopens the session, and its arguments. */
  command: string;
  args: string[];
  /** Variables to set (an empty string unsets one: a nested-instance marker). */
  env?: Record<string, string>;
  /** The Task's `onHijackExit` (default `complete`). */
  onHijackExit: "complete" | "reopen";
}
