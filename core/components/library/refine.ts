/**
 * @module core/components/library/refine
 * ReviewLoop and Optimizer: produce, judge, produce again with the judgement, in a Loop, until
 * the judge is satisfied. See docs/components.md, "Refinement loops".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, type AgentOrFunction, libraryCtx, passRows, required, rowJson, stepTask } from "./common.js";

/**
 * Fields the ReviewLoop reads from a `reviewOutput` row.
 * @example
 * const schemas = { review: reviewVerdictSchema };
 */
export const reviewVerdictSchema = z.object({ approved: z.boolean(), feedback: z.string().optional() });

export interface ReviewLoopProps {
  /** Default `review-loop`. */
  id?: string;
  producer: AgentOrChain;
  reviewer: AgentOrChain;
  /** Table of the producer's rows (`<id>:produce`). */
  produceOutput: OutputTarget;
  /** Table of the reviewer's rows (`<id>:review`); `approved: true` ends the loop. */
  reviewOutput: OutputTarget;
  /** Default 3. */
  maxIterations?: number;
  /** Default `return-last`. */
  onMaxReached?: "fail" | "return-last";
  /** What to produce (beyond SPEC.md; default: "Produce the work."). */
  prompt?: string;
  skipIf?: boolean;
}

/**
 * The producer works, the reviewer approves or sends feedback, and the producer tries again
 * with that feedback, until approved or `maxIterations`.
 * @example
 * <ReviewLoop id="spec" producer={writer} reviewer={[seniorReviewer, fallbackReviewer]} produceOutput={outputs.draft} reviewOutput={outputs.review} prompt="Write the API spec for /orders." />
 */
export function ReviewLoop(props: ReviewLoopProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "review-loop";
  const ctx = libraryCtx(`ReviewLoop "${id}"`);
  const reviews = passRows(ctx, id, required(props.reviewOutput, `ReviewLoop "${id}" reviewOutput`), `${id}:review`);
  const task = props.prompt ?? "Produce the work.";
  return createElement(TAGS.loop, {
    id,
    until: reviews.at(-1)?.approved === true,
    maxIterations: props.maxIterations ?? 3,
    onMaxReached: props.onMaxReached ?? "return-last",
    children: [
      stepTask(`${id}:produce`, props.produceOutput, required(props.producer, `ReviewLoop "${id}" producer`), () => {
        const last = reviews.at(-1);
        return last ? `${task}\nYour last version was not approved. Reviewer feedback: ${String(last.feedback ?? rowJson(last))}` : task;
      }),
      stepTask(`${id}:review`, props.reviewOutput, required(props.reviewer, `ReviewLoop "${id}" reviewer`), () => {
        const work = ctx.latest(props.produceOutput as never, `${id}:produce`) as Record<string, unknown> | undefined;
        return `Review this work for: ${task}\nWork: ${rowJson(work)}\nAnswer with JSON including \`approved\` (true or false) and \`feedback\`.`;
      }),
    ],
  });
}

/**
 * Fields the Optimizer reads from an `evaluateOutput` row.
 * @example
 * const schemas = { score: optimizerScoreSchema };
 */
export const optimizerScoreSchema = z.object({ score: z.number(), feedback: z.string().optional() });

export interface OptimizerProps {
  /** Default `optimizer`. */
  id?: string;
  generator: AgentOrChain;
  /** An agent, or a function of the candidate row returning `{ score, feedback? }`. */
  evaluator: AgentOrChain | ((candidate: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>);
  /** Table of the candidates (`<id>:generate`). */
  generateOutput: OutputTarget;
  /** Table of the evaluations (`<id>:evaluate`), each with a numeric `score`. */
  evaluateOutput: OutputTarget;
  /** Stop once a score reaches it (default 1). */
  targetScore?: number;
  /** Default 5. */
  maxIterations?: number;
  /** Default `return-last`. */
  onMaxReached?: "return-last" | "fail";
  /** What to generate (beyond SPEC.md; default: "Generate a candidate."). */
  prompt?: string;
  skipIf?: boolean;
}

/**
 * Generates a candidate, scores it, and generates again with the score and feedback until
 * `score >= targetScore`.
 * @example
 * <Optimizer id="headline" generator={copywriter} evaluator={(c) => ({ score: ctrModel(c.text) })} generateOutput={outputs.headline} evaluateOutput={outputs.score} targetScore={0.8} />
 */
export function Optimizer(props: OptimizerProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "optimizer";
  const ctx = libraryCtx(`Optimizer "${id}"`);
  const target = props.targetScore ?? 1;
  const scores = passRows(ctx, id, required(props.evaluateOutput, `Optimizer "${id}" evaluateOutput`), `${id}:evaluate`);
  const task = props.prompt ?? "Generate a candidate.";
  const candidate = () => ctx.latest(props.generateOutput as never, `${id}:generate`) as Record<string, unknown> | undefined;
  const evaluator = required(props.evaluator, `Optimizer "${id}" evaluator`);
  const evaluate: AgentOrFunction = typeof evaluator === "function" ? () => evaluator(stripKey(candidate())) : evaluator;
  return createElement(TAGS.loop, {
    id,
    until: scores.some((r) => typeof r.score === "number" && r.score >= target),
    maxIterations: props.maxIterations ?? 5,
    onMaxReached: props.onMaxReached ?? "return-last",
    children: [
      stepTask(`${id}:generate`, props.generateOutput, required(props.generator, `Optimizer "${id}" generator`), () => {
        const last = scores.at(-1);
        return last ? `${task}\nThe last candidate scored ${String(last.score)} (target ${target}). Feedback: ${String(last.feedback ?? "none")}. Do better.` : task;
      }),
      stepTask(`${id}:evaluate`, props.evaluateOutput, evaluate, () => `Score this candidate for: ${task}\nCandidate: ${rowJson(candidate())}\nAnswer with JSON including \`score\` (a number; ${target} is the target) and \`feedback\`.`),
    ],
  });
}

function stripKey(row: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!row) return {};
  const { runId: _r, nodeId: _n, iteration: _i, ...fields } = row;
  return fields;
}
