/**
 * @module core/components/library/poller
 * Poller and DriftDetector: a check repeated on a durable timer until it is satisfied (or, for
 * DriftDetector, until drift is seen). See docs/components.md, "Polling".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, type AgentOrFunction, libraryCtx, passIndex, passRows, required, rowJson, stepTask } from "./common.js";

/**
 * Fields the Poller reads from a `checkOutput` row.
 * @example
 * const schemas = { probe: pollCheckSchema.extend({ status: z.string() }) };
 */
export const pollCheckSchema = z.object({ satisfied: z.boolean() });

export interface PollerProps {
  /** Default `poller`. */
  id?: string;
  /** The check: an agent (asked with `prompt`) or a function returning the row. */
  check: AgentOrFunction;
  /** Table of the check's rows; a row with `satisfied: true` ends the polling. */
  checkOutput: OutputTarget;
  /** Checks at most (default 10). */
  maxAttempts?: number;
  /** Wait between checks: `fixed` (default) intervalMs, `linear` n × intervalMs, `exponential` 2^(n-1) × intervalMs. */
  backoff?: "fixed" | "linear" | "exponential";
  /** Default 1000 ms. */
  intervalMs?: number;
  /** After maxAttempts unsatisfied checks: `fail` (default, LOOP_MAX_ITERATIONS) or `return-last`. */
  onTimeout?: "fail" | "return-last";
  /** What an agent check is asked (beyond SPEC.md; default: asks whether the condition holds). */
  prompt?: string;
  skipIf?: boolean;
}

/**
 * The wait before check number `n` (1-based, n >= 2).
 * @example
 * pollDelayMs("exponential", 1000, 4); // 4000
 */
export function pollDelayMs(backoff: PollerProps["backoff"], intervalMs: number, n: number): number {
  if (backoff === "linear") return intervalMs * (n - 1);
  if (backoff === "exponential") return intervalMs * 2 ** (n - 2);
  return intervalMs;
}

/**
 * Checks, waits (a durable Timer), checks again, until a check row says `satisfied: true`.
 * @example
 * <Poller id="deploy-ready" check={async () => ({ satisfied: await isLive(url) })} checkOutput={outputs.probe} intervalMs={30_000} maxAttempts={20} backoff="linear" />
 */
export function Poller(props: PollerProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "poller";
  const ctx = libraryCtx(`Poller "${id}"`);
  const checks = passRows(ctx, id, required(props.checkOutput, `Poller "${id}" checkOutput`), `${id}:check`);
  const n = passIndex(ctx, id) + 1;
  const interval = props.intervalMs ?? 1000;
  const prompt = props.prompt ?? "Check whether the condition holds now. Answer with JSON including `satisfied` (true or false).";
  return createElement(TAGS.loop, {
    id,
    until: checks.some((r) => r.satisfied === true),
    maxIterations: props.maxAttempts ?? 10,
    onMaxReached: props.onTimeout === "return-last" ? "return-last" : "fail",
    children: [
      n > 1 ? createElement(TAGS.timer, { id: `${id}:wait`, duration: pollDelayMs(props.backoff, interval, n) }, "wait") : null,
      stepTask(`${id}:check`, props.checkOutput, required(props.check, `Poller "${id}" check`), () => `${prompt}\nCheck ${n} of ${props.maxAttempts ?? 10}; last result: ${rowJson(checks.at(-1))}`),
    ],
  });
}

/**
 * Fields the DriftDetector reads from a `compareOutput` row (default `alertIf`).
 * @example
 * const schemas = { diff: driftCompareSchema.extend({ changed: z.array(z.string()) }) };
 */
export const driftCompareSchema = z.object({ drifted: z.boolean() });

export interface DriftDetectorProps {
  /** Default `drift`. */
  id?: string;
  /** Captures the current state (a row of `captureOutput`). */
  captureAgent: AgentOrChain;
  /** Compares the capture with the baseline (a row of `compareOutput`). */
  compareAgent: AgentOrChain;
  captureOutput: OutputTarget;
  compareOutput: OutputTarget;
  /** What the current state should look like (any JSON value). */
  baseline: unknown;
  /** Whether a comparison row is drift (default: `row.drifted === true`). */
  alertIf?: (comparison: Record<string, unknown>) => boolean;
  /** Rendered once drift is seen (for example a Task that pages someone). */
  alert?: FlowNode;
  /** Capture and compare again every `intervalMs` (default 60000) until drift or `maxPolls` (default 10). Without it: once. */
  poll?: { intervalMs?: number; maxPolls?: number };
  skipIf?: boolean;
}

/**
 * Captures the current state, compares it with a baseline, and raises `alert` on drift;
 * with `poll`, keeps watching on a durable timer.
 * @example
 * <DriftDetector id="schema" captureAgent={dba} compareAgent={reviewer} captureOutput={outputs.snapshot} compareOutput={outputs.diff} baseline={expectedSchema} alert={<Task id="page" .../>} poll={{ intervalMs: 3_600_000 }} />
 */
export function DriftDetector(props: DriftDetectorProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "drift";
  const ctx = libraryCtx(`DriftDetector "${id}"`);
  const alertIf = props.alertIf ?? ((row) => row.drifted === true);
  const compares = passRows(ctx, id, props.compareOutput, `${id}:compare`);
  const drifted = compares.some((r) => alertIf(r));
  const n = passIndex(ctx, id) + 1;
  const baseline = JSON.stringify(props.baseline);
  const round = [
    props.poll && n > 1 ? createElement(TAGS.timer, { id: `${id}:wait`, duration: props.poll.intervalMs ?? 60_000 }, "wait") : null,
    stepTask(`${id}:capture`, props.captureOutput, props.captureAgent, () => `Capture the current state to compare with this baseline: ${baseline}`),
    stepTask(`${id}:compare`, props.compareOutput, props.compareAgent, () => {
      const captured = ctx.latest(props.captureOutput as never, `${id}:capture`) as Record<string, unknown> | undefined;
      return `Compare the current state with the baseline. Answer with JSON including \`drifted\` (true or false).\nBaseline: ${baseline}\nCurrent: ${rowJson(captured)}`;
    }),
  ];
  const watch = props.poll
    ? createElement(TAGS.loop, { id, until: drifted, maxIterations: props.poll.maxPolls ?? 10, onMaxReached: "return-last", children: round })
    : createElement(TAGS.sequence, { id, children: round });
  return createElement(TAGS.sequence, { children: [watch, drifted && props.alert ? createElement(TAGS.sequence, { id: `${id}:alert`, children: props.alert }, "alert") : null] });
}
