/**
 * @module core/components/library/runbook
 * Runbook: operational steps in order, each by risk: safe steps run, risky and critical ones
 * wait for a person's approval first (critical ones are never retried by themselves). See
 * docs/components.md, "Runbook".
 */
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { ApprovalRequest } from "../wait-types.js";
import type { OutputTarget, TaskRuntime } from "../types.js";
import { type AgentOrChain, type AgentOrFunction, isAgentOrChain, required } from "./common.js";
import { FlowError } from "../../errors.js";

/** One step of a Runbook. */
export interface RunbookStep {
  /** The step's node id (`<runbook id>:<step id>`). */
  id: string;
  /** Who does it (default: the Runbook's `defaultAgent`). */
  agent?: AgentOrChain;
  /** The command: given to the agent to run, or a function that runs it and returns the row. */
  command?: string | ((task: TaskRuntime) => Record<string, unknown> | Promise<Record<string, unknown>>);
  risk: "safe" | "risky" | "critical";
  label?: string;
  /** Its own table (default: `stepOutput`). */
  output?: OutputTarget;
}

export interface RunbookProps {
  /** Default `runbook`. */
  id?: string;
  steps: RunbookStep[];
  defaultAgent?: AgentOrChain;
  stepOutput: OutputTarget;
  /** Fields of every approval request (the title defaults to "Run <risk> step <label>?"). */
  approvalRequest?: Partial<ApprovalRequest>;
  /** A denied step: `fail` (default) fails the run with APPROVAL_DENIED; `skip` skips the step and goes on. */
  onDeny?: "fail" | "skip";
  skipIf?: boolean;
}

/**
 * Steps one after another; a risky or critical step first waits for approval (its task's
 * approval gate, delivered with `submitApproval(runId, "<id>:<step>")`).
 * @example
 * <Runbook id="failover" defaultAgent={sre} stepOutput={outputs.step} steps={[{ id: "check-replica", command: "pg_stat_replication", risk: "safe" }, { id: "promote", command: "pg_ctl promote", risk: "critical" }]} />
 */
export function Runbook(props: RunbookProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "runbook";
  const steps = required(props.steps, `Runbook "${id}" steps`);
  return createElement(TAGS.sequence, {
    id,
    children: steps.map((s) => {
      const nodeId = `${id}:${s.id}`;
      const label = s.label ?? s.id;
      const gated = s.risk === "risky" || s.risk === "critical";
      const props2: Record<string, unknown> = { id: nodeId, output: s.output ?? props.stepOutput, label, meta: { risk: s.risk } };
      if (gated) {
        props2.needsApproval = true;
        props2.onDeny = props.onDeny ?? "fail";
        props2.approvalRequest = {
          ...props.approvalRequest,
          title: props.approvalRequest?.title ? `${props.approvalRequest.title}: ${label}` : `Run ${s.risk} step ${label}?`,
          metadata: { ...props.approvalRequest?.metadata, risk: s.risk, step: s.id, ...(typeof s.command === "string" ? { command: s.command } : {}) },
        };
      }
      if (s.risk === "critical") props2.retries = 0;
      const doer: AgentOrFunction | undefined = typeof s.command === "function" ? s.command : (s.agent ?? props.defaultAgent);
      if (typeof doer === "function") props2.children = (task: TaskRuntime) => doer(task);
      else if (isAgentOrChain(doer)) {
        props2.agent = doer;
        props2.children = `${s.command ? `Run \`${s.command}\`` : `Do the step "${label}"`} and report the result as JSON.`;
      } else throw new FlowError("RENDER_FAILED", `Runbook "${id}" step "${s.id}" has no agent: give it one, a defaultAgent, or a command function.`);
      return createElement(TAGS.task, props2, nodeId);
    }),
  });
}
