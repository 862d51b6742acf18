/**
 * @module core/engine/describe-node
 * Builds the TaskDescriptor of one node from its host element's props: a Task (with its
 * children classified as prompt, row or function), or a waiting node (Approval, HumanTask,
 * Signal, WaitForEvent, Timer) with the wait it parks on.
 */
import { isAgentLike } from "../agents/index.js";
import type { CachePolicy } from "../components/index.js";
import { FlowError, type FlowErrorJson } from "../errors.js";
import { type HostElement, isFlowElement, textOf } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { SchemaRegistry, TableEntry } from "../schema/index.js";
import type { TaskDescriptor } from "./types.js";
import { type ApprovalWait, type OnTimeout, parseDuration, parseInstant, type WaitSpec } from "./waits/spec.js";

/** The Worktree or Sandbox a node runs in. */
export interface WorkspaceRef {
  kind: "worktree" | "sandbox";
  id: string;
  path?: string;
  branch?: string;
  baseBranch?: string;
  from?: string;
}

/** A child run (Subflow). */
export interface SubflowSpec {
  workflow: unknown;
  input?: Record<string, unknown>;
}

/** Continue-as-new: end this run and start a fresh one. */
export interface ContinueSpec {
  input?: Record<string, unknown>;
  carryOutputs: boolean;
}

/**
 * A descriptor plus what the engine needs beyond SPEC.md's TaskDescriptor (internal): the
 * wait it parks on, the error a `flow:fail` node raises, a subflow, a continue-as-new, and the
 * workspace it runs in.
 */
export type NodeDescriptor = TaskDescriptor & {
  wait?: WaitSpec;
  failWith?: FlowErrorJson;
  subflow?: SubflowSpec;
  continueAsNew?: ContinueSpec;
  workspace?: WorkspaceRef;
  /** The Aspects blocks around the node, innermost first. */
  aspects?: string[];
};

export interface DescribeInput {
  nodeId: string;
  iteration: number;
  ordinal: number;
  registry: SchemaRegistry;
  cacheByDefault: boolean;
}

const WHAT: Record<string, string> = {
  [TAGS.task]: "Task",
  [TAGS.approval]: "Approval",
  [TAGS.human]: "HumanTask",
  [TAGS.event]: "WaitForEvent",
  [TAGS.signal]: "Signal",
  [TAGS.timer]: "Timer",
  [TAGS.fail]: "failure",
  [TAGS.continueAsNew]: "ContinueAsNew",
  [TAGS.subflow]: "Subflow",
};

/** Node tags without an output table. */
const NO_OUTPUT = new Set<string>([TAGS.signal, TAGS.timer, TAGS.fail, TAGS.continueAsNew]);

/** The descriptor of a node element. */
export function describeNode(el: HostElement, input: DescribeInput): NodeDescriptor {
  const p = el.rawProps;
  const what = `${WHAT[el.tag] ?? el.tag} "${input.nodeId}"`;
  const hasOutput = !NO_OUTPUT.has(el.tag);
  if (hasOutput && p.output === undefined) throw new FlowError("RENDER_FAILED", `${what} is missing its output (outputs.<key>).`, { nodeId: input.nodeId });
  const entry = hasOutput ? input.registry.resolve(p.output, `${what} output`) : undefined;
  const desc = baseDescriptor(p, input, entry, what);
  switch (el.tag) {
    case TAGS.task:
      describeTask(el, desc, what);
      break;
    case TAGS.approval:
      desc.wait = approvalWait(p, what);
      desc.needsApproval = true;
      setApprovalFields(desc, desc.wait, p);
      break;
    case TAGS.human:
      if (typeof p.prompt !== "string") throw new FlowError("RENDER_FAILED", `${what} needs a prompt.`, { nodeId: input.nodeId });
      desc.wait = { kind: "human", prompt: p.prompt, maxAttempts: p.maxAttempts === undefined ? 3 : nonNegative(p.maxAttempts, `${what} maxAttempts`), ...timeout(desc) };
      desc.prompt = p.prompt;
      break;
    case TAGS.event:
      if (typeof p.event !== "string" || !p.event) throw new FlowError("RENDER_FAILED", `${what} needs an event name.`, { nodeId: input.nodeId });
      desc.wait = signalWait("event", p.event, p, desc);
      break;
    case TAGS.signal:
      if (!p.schema || typeof (p.schema as { safeParse?: unknown }).safeParse !== "function") {
        throw new FlowError("RENDER_FAILED", `${what} needs a schema (z.object(...)) for its data.`, { nodeId: input.nodeId });
      }
      desc.outputSchema = p.schema as TaskDescriptor["outputSchema"];
      desc.wait = signalWait("signal", input.nodeId, p, desc);
      break;
    case TAGS.timer:
      desc.wait = timerWait(p, what);
      break;
    case TAGS.fail:
      desc.failWith = p.error as FlowErrorJson;
      break;
    case TAGS.continueAsNew:
      desc.continueAsNew = { carryOutputs: p.carryOutputs === true, ...(p.input ? { input: p.input as Record<string, unknown> } : {}) };
      break;
    case TAGS.subflow:
      if (!p.workflow || typeof (p.workflow as { build?: unknown }).build !== "function") {
        throw new FlowError("RENDER_FAILED", `${what} needs a workflow made with flow(...).`, { nodeId: input.nodeId });
      }
      desc.subflow = { workflow: p.workflow, ...(p.input ? { input: p.input as Record<string, unknown> } : {}) };
      break;
  }
  return desc;
}

function baseDescriptor(p: Record<string, unknown>, input: DescribeInput, entry: TableEntry | undefined, what: string): NodeDescriptor {
  const desc: NodeDescriptor = {
    nodeId: input.nodeId,
    ordinal: input.ordinal,
    iteration: input.iteration,
    outputTable: entry?.key ?? "",
    outputTableName: entry?.tableName ?? "",
    needsApproval: p.needsApproval === true,
    skipIf: p.skipIf === true,
    retries: p.noRetry === true ? 0 : p.retries === undefined ? Infinity : nonNegative(p.retries, `${what} retries`),
    timeoutMs: positiveOrUndefined(p.timeoutMs, `${what} timeoutMs`) ?? null,
    heartbeatTimeoutMs: positiveOrUndefined(p.heartbeatTimeoutMs ?? p.heartbeatTimeout, `${what} heartbeatTimeoutMs`) ?? null,
    continueOnFail: p.continueOnFail === true,
  };
  const schema = (p.outputSchema as TaskDescriptor["outputSchema"]) ?? entry?.schema;
  if (schema) desc.outputSchema = schema;
  if (p.retryPolicy) desc.retryPolicy = p.retryPolicy as TaskDescriptor["retryPolicy"];
  if (p.async === true) desc.waitAsync = true;
  const cache = p.cache === false ? undefined : p.cache === true ? {} : ((p.cache as CachePolicy | undefined) ?? (input.cacheByDefault ? {} : undefined));
  if (cache && entry) desc.cachePolicy = cache;
  if (typeof p.label === "string") desc.label = p.label;
  if (p.meta) desc.meta = p.meta as Record<string, unknown>;

  // Explicit dependencies: dependsOn ids, needs values, and deps keys (resolved through needs).
  const deps = new Set<string>(Array.isArray(p.dependsOn) ? (p.dependsOn as string[]) : []);
  const needs = (p.needs ?? undefined) as Record<string, string> | undefined;
  if (needs) {
    desc.needs = needs;
    for (const v of Object.values(needs)) deps.add(v);
  }
  if (p.deps && typeof p.deps === "object") {
    desc.depsNodes = {};
    for (const [name, target] of Object.entries(p.deps as Record<string, unknown>)) {
      input.registry.resolve(target, `${what} deps.${name}`);
      const dep = needs?.[name] ?? name;
      desc.depsNodes[name] = dep;
      deps.add(dep);
    }
  }
  if (deps.size) desc.dependsOn = [...deps];
  return desc;
}

function describeTask(el: HostElement, desc: NodeDescriptor, what: string): void {
  const p = el.rawProps;
  const agents = p.agent === undefined ? [] : Array.isArray(p.agent) ? [...p.agent] : [p.agent];
  if (isAgentLike(p.fallbackAgent)) agents.push(p.fallbackAgent);
  for (const a of agents) if (!isAgentLike(a)) throw new FlowError("RENDER_FAILED", `${what} agent has no generate() method.`, { nodeId: desc.nodeId });
  if (agents.length) desc.agent = agents.length === 1 ? agents[0] : agents;
  if (p.scorers) desc.scorers = p.scorers as TaskDescriptor["scorers"];
  if (p.memory) desc.memoryConfig = p.memory as TaskDescriptor["memoryConfig"];
  if (p.async === true && !desc.needsApproval) {
    throw new FlowError("RENDER_FAILED", `${what}: async only applies to a task that waits for approval; add needsApproval, or drop async.`, { nodeId: desc.nodeId });
  }
  if (typeof p.fork === "string") desc.forkSource = p.fork;
  if (p.hijack !== undefined) desc.hijack = p.hijack;
  desc.onHijackExit = p.onHijackExit === "reopen" ? "reopen" : "complete";
  if (Array.isArray(p.allowTools)) desc.allowTools = p.allowTools as string[];
  if (desc.needsApproval) {
    // A gate before the task itself runs. Its request and `onDeny: "skip"` may be set by the
    // components that build gated tasks (Runbook); a plain Task's gate fails when denied.
    const request = (p.approvalRequest as ApprovalWait["request"] | undefined) ?? { title: desc.label ?? `Run task ${desc.nodeId}?` };
    desc.wait = { kind: "approval", mode: "approve", request, onDeny: p.onDeny === "skip" ? "skip" : "fail", gatesTask: true };
    setApprovalFields(desc, desc.wait, p);
  }
  classifyChildren(el, desc, agents.length > 0);
}

function classifyChildren(el: HostElement, desc: TaskDescriptor, hasAgent: boolean): void {
  const child = el.rawProps.children;
  if (typeof child === "function") {
    desc.computeFn = child as TaskDescriptor["computeFn"];
    desc.depsAware = desc.depsNodes !== undefined;
    return;
  }
  if (typeof child === "string" || isFlowElement(child) || (Array.isArray(child) && el.children.length > 0)) {
    if (!hasAgent) {
      throw new FlowError("RENDER_FAILED", `Task "${desc.nodeId}" has a prompt but no agent; give it an agent, or a row or function as child.`, { nodeId: desc.nodeId });
    }
    desc.prompt = textOf(el.children);
    return;
  }
  if (child !== undefined && child !== null && typeof child === "object") {
    desc.staticPayload = child;
    return;
  }
  throw new FlowError("RENDER_FAILED", `Task "${desc.nodeId}" has no children: give it a prompt, a row or a function.`, { nodeId: desc.nodeId });
}

function approvalWait(p: Record<string, unknown>, what: string): ApprovalWait {
  const request = p.request as ApprovalWait["request"] | undefined;
  if (!request || typeof request.title !== "string") throw new FlowError("RENDER_FAILED", `${what} needs a request with a title.`);
  const mode = (p.mode ?? "approve") as ApprovalWait["mode"];
  if (!["approve", "select", "rank"].includes(mode)) throw new FlowError("RENDER_FAILED", `${what} mode must be approve, select or rank.`);
  const options = p.options as ApprovalWait["options"];
  if (mode !== "approve" && (!Array.isArray(options) || options.length === 0)) throw new FlowError("RENDER_FAILED", `${what} in ${mode} mode needs options.`);
  const auto = (p.autoApprove ?? {}) as { after?: string | number; condition?: boolean; audit?: string; revertOn?: boolean };
  const wait: ApprovalWait = { kind: "approval", mode, request, onDeny: (p.onDeny ?? "fail") as ApprovalWait["onDeny"] };
  if (options) wait.options = options;
  if (Array.isArray(p.allowedScopes)) wait.allowedScopes = p.allowedScopes as string[];
  if (Array.isArray(p.allowedUsers)) wait.allowedUsers = p.allowedUsers as string[];
  if (auto.after !== undefined) wait.autoAfterMs = parseDuration(auto.after, `${what} autoApprove.after`);
  if (auto.condition === true) wait.autoNow = true;
  if (auto.audit) wait.audit = auto.audit;
  if (auto.revertOn === true) wait.revertOn = true;
  if (typeof p.timeoutMs === "number") wait.timeoutMs = p.timeoutMs;
  return wait;
}

function setApprovalFields(desc: TaskDescriptor, wait: ApprovalWait, p: Record<string, unknown>): void {
  desc.needsApproval = true;
  desc.approvalMode = wait.audit === "gate" ? "gate" : wait.mode === "approve" ? "decision" : wait.mode;
  desc.approvalOnDeny = wait.onDeny;
  if (wait.options) desc.approvalOptions = wait.options;
  if (wait.allowedScopes) desc.approvalAllowedScopes = wait.allowedScopes;
  if (wait.allowedUsers) desc.approvalAllowedUsers = wait.allowedUsers;
  const auto = p.autoApprove as { after?: unknown; audit?: unknown; condition?: boolean; revertOn?: boolean } | undefined;
  if (auto) desc.approvalAutoApprove = { after: auto.after, audit: auto.audit, conditionMet: auto.condition === true, revertOnMet: auto.revertOn === true };
}

function signalWait(kind: "signal" | "event", name: string, p: Record<string, unknown>, desc: TaskDescriptor): WaitSpec {
  const wait: WaitSpec = { kind, name, onTimeout: (p.onTimeout ?? "fail") as OnTimeout, ...timeout(desc) };
  if (typeof p.correlationId === "string") wait.correlationId = p.correlationId;
  return wait;
}

function timerWait(p: Record<string, unknown>, what: string): WaitSpec {
  if (p.every !== undefined) {
    throw new FlowError("RENDER_FAILED", `${what}: recurring timers (every) are not supported; use a Loop around a Timer, or a Gateway schedule.`);
  }
  if ((p.duration === undefined) === (p.until === undefined)) throw new FlowError("RENDER_FAILED", `${what} needs exactly one of duration or until.`);
  return p.duration !== undefined
    ? { kind: "timer", durationMs: parseDuration(p.duration as string | number, `${what} duration`) }
    : { kind: "timer", untilMs: parseInstant(p.until as string | Date, `${what} until`) };
}

function timeout(desc: TaskDescriptor): { timeoutMs?: number } {
  return desc.timeoutMs === null ? {} : { timeoutMs: desc.timeoutMs };
}

export function positiveOrUndefined(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !(value > 0)) throw new FlowError("RENDER_FAILED", `${what} must be a positive number, got ${String(value)}.`);
  return value;
}

function nonNegative(value: unknown, what: string): number {
  if (typeof value !== "number" || !(value >= 0)) throw new FlowError("RENDER_FAILED", `${what} must be 0 or more, got ${String(value)}.`);
  return value;
}
