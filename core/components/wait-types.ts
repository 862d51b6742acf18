/**
 * @module core/components/wait-types
 * Props of the waiting components (SPEC.md "Component props": Approval, ApprovalGate,
 * HumanTask, Signal, WaitForEvent, Timer).
 */
import type { z } from "zod";
import type { FlowNode } from "../jsx/index.js";
import type { AnyObjectSchema } from "../schema/index.js";
import type { CommonTaskProps, OutputTarget, SchemaMap } from "./types.js";

/** What a person is asked to approve. */
export interface ApprovalRequest {
  title: string;
  summary?: string;
  metadata?: Record<string, unknown>;
}

/** A choice of an Approval in `select` or `rank` mode. */
export interface ApprovalOption {
  key: string;
  label: string;
  summary?: string;
  metadata?: Record<string, unknown>;
}

export interface AutoApprove {
  /** Approve by itself this long after the request (`"30m"`, or ms). */
  after?: string | number;
  /** Approve at once when true (evaluated at each render). */
  condition?: boolean;
  /** Actor recorded as `decidedBy` for automatic approvals (default `auto`). */
  audit?: string;
  /**
   * While true (evaluated at each render), no automatic approval happens: `after` and
   * `condition` are suspended and a person decides. An approval already decided stays decided.
   */
  revertOn?: boolean;
}

type WaitCommon = Omit<CommonTaskProps, "cache"> & { cache?: CommonTaskProps["cache"] };

export interface ApprovalProps<S extends SchemaMap, O extends OutputTarget<S>> extends WaitCommon {
  output: O;
  request: ApprovalRequest;
  /** Default `approve`: a yes/no decision. */
  mode?: "approve" | "select" | "rank";
  options?: ApprovalOption[];
  outputSchema?: AnyObjectSchema;
  /** Default `fail`. */
  onDeny?: "fail" | "continue" | "skip";
  allowedScopes?: string[];
  allowedUsers?: string[];
  autoApprove?: AutoApprove;
  /** Later siblings may run while it waits; what depends on it still waits. */
  async?: boolean;
}

export interface ApprovalGateProps<S extends SchemaMap, O extends OutputTarget<S>> extends WaitCommon {
  output: O;
  request: ApprovalRequest;
  /** Ask only when true; false approves at once. */
  when: boolean;
  onDeny?: "fail" | "continue" | "skip";
  allowedScopes?: string[];
  allowedUsers?: string[];
}

export interface HumanTaskProps<S extends SchemaMap, O extends OutputTarget<S>> extends WaitCommon {
  output: O;
  prompt: string;
  outputSchema?: AnyObjectSchema;
  /** Invalid submissions tolerated before the task fails (default 3). */
  maxAttempts?: number;
  async?: boolean;
}

export interface SignalProps<Schema extends AnyObjectSchema> {
  id: string;
  key?: string | number;
  schema: Schema;
  correlationId?: string;
  timeoutMs?: number;
  /** Default `fail`. */
  onTimeout?: "fail" | "skip" | "continue";
  async?: boolean;
  skipIf?: boolean;
  dependsOn?: string[];
  needs?: Record<string, string>;
  label?: string;
  meta?: Record<string, unknown>;
  /** Rendered once the signal arrived, with its validated data (undefined after `onTimeout: "continue"`). */
  children?: (data: z.output<Schema>) => FlowNode;
}

export interface WaitForEventProps<S extends SchemaMap, O extends OutputTarget<S>> extends WaitCommon {
  event: string;
  output: O;
  correlationId?: string;
  outputSchema?: AnyObjectSchema;
  onTimeout?: "fail" | "skip" | "continue";
  async?: boolean;
}

export interface TimerProps extends WaitCommon {
  /** How long to wait, from when the timer is first reached: `"30s"`, `"5m"`, or ms. */
  duration?: string | number;
  /** Wait until this time (ISO string or Date). */
  until?: string | Date;
  /** Reserved: recurring timers are not supported (use a Loop, or a Gateway schedule). */
  every?: string;
}
