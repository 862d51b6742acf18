/**
 * @module core/scorers/create-scorer
 * `createScorer` and `createLlmJudge`: the two ways to make a scorer. Both return scorers whose
 * `score` resolves to a checked `ScoreResult` or rejects with SCORER_FAILED naming the scorer.
 * See docs/scorers.md.
 */
import { z } from "zod";
import { extractAgentOutput } from "../agents/index.js";
import { FlowError, isFlowError } from "../errors.js";
import type { CreateScorerConfig, LlmJudgeConfig, ScoreResult, Scorer, ScorerInput } from "./types.js";

function checkIdentity(config: { id?: unknown; name?: unknown; description?: unknown }, what: string): void {
  for (const field of ["id", "name", "description"] as const) {
    if (typeof config?.[field] !== "string" || (field !== "description" && config[field] === "")) {
      throw new FlowError("INVALID_ARGUMENT", `${what} needs a string \`${field}\`${field === "description" ? "" : " that is not empty"}; got ${JSON.stringify(config?.[field])}.`, {
        field,
      });
    }
  }
}

/** Checks what a scoring function returned: a finite number, or `{ score, reason?, meta? }`. */
export function toScoreResult(scorerId: string, value: unknown): ScoreResult {
  const result = typeof value === "number" ? { score: value } : (value as ScoreResult | null | undefined);
  if (typeof result?.score !== "number" || !Number.isFinite(result.score)) {
    throw new FlowError("SCORER_FAILED", `Scorer "${scorerId}" returned ${JSON.stringify(value)}; a score must be a finite number or { score: number, reason?, meta? }.`, { scorerId });
  }
  const out: ScoreResult = { score: result.score };
  if (typeof result.reason === "string") out.reason = result.reason;
  if (result.meta && typeof result.meta === "object") out.meta = result.meta;
  return out;
}

/**
 * A scorer from a function. The function may return a number or a `ScoreResult`, sync or async.
 * @example
 * const exact = createScorer({
 *   id: "exact-match",
 *   name: "Exact match",
 *   description: "1 when the output equals the ground truth",
 *   score: ({ output, groundTruth }) => (JSON.stringify(output) === JSON.stringify(groundTruth) ? 1 : 0),
 * });
 */
export function createScorer(config: CreateScorerConfig): Scorer {
  checkIdentity(config, "createScorer");
  if (typeof config.score !== "function") throw new FlowError("INVALID_ARGUMENT", `createScorer "${config.id}" needs a score function.`, { scorerId: config.id });
  return {
    id: config.id,
    name: config.name,
    description: config.description,
    async score(input: ScorerInput) {
      let value: unknown;
      try {
        value = await config.score(input);
      } catch (cause) {
        if (isFlowError(cause)) throw cause;
        throw new FlowError("SCORER_FAILED", `Scorer "${config.id}" threw: ${(cause as Error)?.message ?? String(cause)}`, { scorerId: config.id }, { cause });
      }
      return toScoreResult(config.id, value);
    },
  };
}

/** What the judge must answer. */
const VERDICT = z.object({
  score: z.number().describe("The grade, on the scale the instructions give"),
  reason: z.string().describe("One or two sentences that justify the grade"),
});

/**
 * A scorer whose grade comes from an agent (an LLM judge). The judge gets `instructions`, the
 * text of `promptTemplate(input)` and a request for `{ "score": number, "reason": string }`;
 * its answer is read like a task's structured output (native structured output, a JSON
 * object or a fenced JSON block in its text).
 * @example
 * const helpful = createLlmJudge({
 *   id: "helpfulness",
 *   name: "Helpfulness",
 *   description: "How well the answer helps the user, 0 to 1",
 *   judge: new HostedChatAgent({ model: "gpt-4o-mini" }),
 *   instructions: "Grade how helpful the answer is, from 0 (useless) to 1 (complete).",
 *   promptTemplate: ({ input, output }) => `Question: ${JSON.stringify(input)}\nAnswer: ${JSON.stringify(output)}`,
 * });
 */
export function createLlmJudge(config: LlmJudgeConfig): Scorer {
  checkIdentity(config, "createLlmJudge");
  if (typeof config.judge?.generate !== "function") throw new FlowError("INVALID_ARGUMENT", `createLlmJudge "${config.id}" needs a judge agent (an object with generate).`, { scorerId: config.id });
  return createScorer({
    id: config.id,
    name: config.name,
    description: config.description,
    async score(input) {
      const prompt = [
        config.instructions,
        config.promptTemplate(input),
        'Answer with only a JSON object: {"score": <number>, "reason": "<why>"}.',
      ].join("\n\n");
      const answer = extractAgentOutput(await config.judge.generate({ prompt, outputSchema: VERDICT }));
      const verdict = VERDICT.safeParse(answer);
      if (!verdict.success) {
        throw new FlowError("SCORER_FAILED", `LLM judge "${config.id}" did not answer with {"score": number, "reason": string}; got ${JSON.stringify(answer)?.slice(0, 200)}.`, {
          scorerId: config.id,
        });
      }
      return { score: verdict.data.score, reason: verdict.data.reason, meta: { judge: config.judge.id ?? null } };
    },
  });
}
