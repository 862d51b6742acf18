/**
 * @module core/components/library/escalation
 * EscalationChain: level after level tries until one does not escalate; a person is the last
 * resort. See docs/components.md, "EscalationChain".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, libraryCtx, required, rowJson, stepTask } from "./common.js";

/**
 * The escalation record (`escalationOutput` needs these fields).
 * @example
 * const schemas = { escalation: escalationRecordSchema };
 */
export const escalationRecordSchema = z.object({
  /** Label of the level that resolved it (`human` for the fallback), or null when nobody did. */
  resolvedBy: z.string().nullable(),
  /** 0-based index of that level (levels.length for the human), or null. */
  level: z.number().nullable(),
  /** Whether it went past the first level. */
  escalated: z.boolean(),
});

/** One level of an EscalationChain. */
export interface EscalationLevel {
  agent: AgentOrChain;
  output: OutputTarget;
  label?: string;
  /** Whether this level's row hands the case on (default: `row.escalate === true`). */
  escalateIf?: (row: Record<string, unknown>) => boolean;
}

export interface EscalationChainProps {
  /** Default `escalation`. */
  id?: string;
  levels: EscalationLevel[];
  /** When every level escalates, ask a person (a HumanTask on the last level's table). */
  humanFallback?: boolean;
  /** What the person is asked (default: the case and the last answer). */
  humanRequest?: { title?: string; prompt?: string };
  /** Table of the escalation record (`<id>`). */
  escalationOutput: OutputTarget;
  /** The case (beyond SPEC.md; default "Resolve the case."). */
  prompt?: string;
  skipIf?: boolean;
}

/**
 * Level 1 tries; when its row says to escalate, level 2 tries with what level 1 said; and so
 * on. The record says who resolved it.
 * @example
 * <EscalationChain id="refund" levels={[{ agent: bot, output: outputs.answer, label: "bot" }, { agent: senior, output: outputs.answer, label: "senior" }]} humanFallback escalationOutput={outputs.escalation} prompt="Customer asks for a refund on order 981." />
 */
export function EscalationChain(props: EscalationChainProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "escalation";
  const ctx = libraryCtx(`EscalationChain "${id}"`);
  const levels = required(props.levels, `EscalationChain "${id}" levels`);
  const task = props.prompt ?? "Resolve the case.";
  const nodes: FlowNode[] = [];
  let resolvedAt: number | null = null;
  let last: Record<string, unknown> | undefined;
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    const nodeId = `${id}:level-${i + 1}`;
    const before = last;
    nodes.push(
      stepTask(nodeId, l.output, l.agent, () => `${task}${before ? `\nThe previous level escalated to you. It said: ${rowJson(before)}` : ""}\nAnswer with JSON; set \`escalate\` to true to hand the case to the next level.`, l.label ? { label: l.label } : {}),
    );
    const row = ctx.outputMaybe(l.output as never, { nodeId }) as Record<string, unknown> | undefined;
    if (!row) break;
    last = row;
    if (!(l.escalateIf ?? ((r) => r.escalate === true))(row)) {
      resolvedAt = i;
      break;
    }
  }
  const allEscalated = resolvedAt === null && last !== undefined && nodes.length === levels.length && ctx.outputMaybe(levels.at(-1)!.output as never, { nodeId: `${id}:level-${levels.length}` }) !== undefined;
  const human = allEscalated && props.humanFallback;
  if (human) {
    const lastLevel = levels.at(-1)!;
    nodes.push(
      createElement(TAGS.human, {
        id: `${id}:human`,
        output: lastLevel.output,
        prompt: props.humanRequest?.prompt ?? `${props.humanRequest?.title ?? task}\nEvery level escalated; the last said: ${rowJson(last)}`,
      }, "human"),
    );
  }
  const decided = resolvedAt !== null || (allEscalated && !props.humanFallback) || (human && ctx.outputMaybe(levels.at(-1)!.output as never, { nodeId: `${id}:human` }) !== undefined);
  if (decided) {
    const resolvedBy = resolvedAt !== null ? (levels[resolvedAt]!.label ?? `level-${resolvedAt + 1}`) : human ? "human" : null;
    const level = resolvedAt ?? (human ? levels.length : null);
    nodes.push(createElement(TAGS.task, { id, output: props.escalationOutput, children: { resolvedBy, level, escalated: (level ?? 1) > 0 } }, "record"));
  }
  return createElement(TAGS.sequence, { id: `${id}:chain`, children: nodes });
}
