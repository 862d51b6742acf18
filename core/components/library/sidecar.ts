/**
 * @module core/components/library/sidecar
 * Sidecar: the primary agent and a (cheaper) sidecar agent do the same task side by side;
 * both are scored, and a delta record says whether the sidecar would have done as well. See
 * docs/components.md, "Sidecar".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { ScorersMap } from "../../scorers/index.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, libraryCtx, parallelGroup, required, stepTask } from "./common.js";

/**
 * SPEC.md's Sidecar delta record: mean scores, `delta` = sidecar - primary, and whether the cheaper sidecar is at least as good.
 * @example
 * const schemas = { delta: sidecarDeltaSchema };
 */
export const sidecarDeltaSchema = z.object({
  primaryScore: z.number().nullable(),
  sidecarScore: z.number().nullable(),
  delta: z.number().nullable(),
  cheaperWins: z.boolean(),
});

export interface SidecarProps {
  /** Default `sidecar`; the primary runs as `<id>`, the sidecar as `<id>:sidecar`, the delta as `<id>:delta`. */
  id?: string;
  /** The primary agent: its row is the one the workflow uses. */
  agent: AgentOrChain;
  /** The candidate (usually cheaper) agent shadowing it. */
  sidecar: AgentOrChain;
  output: OutputTarget;
  /** Table of the sidecar's row (default: `output`). */
  sidecarOutput?: OutputTarget;
  /** Graders of both rows (also recorded as live scores of each task). Without them both scores are null. */
  scorers?: ScorersMap;
  /** The task both do. */
  prompt?: string;
  /** Data both are given (appended to the prompt as JSON) and scorers receive as `input`. */
  input?: unknown;
  maxConcurrency?: number;
  groundTruth?: unknown;
  context?: unknown;
  primaryLabel?: string;
  sidecarLabel?: string;
  /** Table of the delta record (beyond SPEC.md, which names the record but not where it goes; needs sidecarDeltaSchema's fields). */
  deltaOutput?: OutputTarget;
  skipIf?: boolean;
}

/**
 * Runs the primary and the sidecar on the same task at once and records how their scores compare.
 * @example
 * <Sidecar id="summary" agent={bigModel} sidecar={smallModel} output={outputs.summary} scorers={{ faithful: faithfulness }} groundTruth={reference} deltaOutput={outputs.delta} prompt="Summarize the incident report." />
 */
export function Sidecar(props: SidecarProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "sidecar";
  const ctx = libraryCtx(`Sidecar "${id}"`);
  const prompt = `${props.prompt ?? "Do the task."}${props.input === undefined ? "" : `\nInput: ${JSON.stringify(props.input)}`}`;
  const sidecarOutput = props.sidecarOutput ?? props.output;
  const extra = props.scorers ? { scorers: props.scorers } : {};
  const meanScore = async (row: Record<string, unknown> | undefined): Promise<number | null> => {
    if (!row || !props.scorers) return null;
    const { runId: _r, nodeId: _n, iteration: _i, ...output } = row;
    const scores = await Promise.all(
      Object.values(props.scorers).map((b) => ("scorer" in b ? b.scorer : b).score({ input: props.input ?? prompt, output, groundTruth: props.groundTruth, context: props.context })),
    );
    return scores.length ? scores.reduce((s, r) => s + r.score, 0) / scores.length : null;
  };
  return createElement(TAGS.sequence, {
    id: `${id}:group`,
    children: [
      parallelGroup(`${id}:pair`, props.maxConcurrency, [
          stepTask(id, props.output, required(props.agent, `Sidecar "${id}" agent`), () => prompt, { ...extra, label: props.primaryLabel ?? "primary" }),
          stepTask(`${id}:sidecar`, sidecarOutput, required(props.sidecar, `Sidecar "${id}" sidecar`), () => prompt, { ...extra, label: props.sidecarLabel ?? "sidecar", continueOnFail: true }),
        ]),
      props.deltaOutput
        ? createElement(TAGS.task, {
            id: `${id}:delta`,
            output: props.deltaOutput,
            children: async () => {
              const primaryScore = await meanScore(ctx.latest(props.output as never, id) as Record<string, unknown> | undefined);
              const sidecarScore = await meanScore(ctx.latest(sidecarOutput as never, `${id}:sidecar`) as Record<string, unknown> | undefined);
              const delta = primaryScore === null || sidecarScore === null ? null : sidecarScore - primaryScore;
              return { primaryScore, sidecarScore, delta, cheaperWins: delta !== null && delta >= 0 };
            },
          }, "delta")
        : null,
    ],
  });
}
