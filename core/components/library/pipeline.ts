/**
 * @module core/components/library/pipeline
 * Sequential hand-offs: ContentPipeline (each stage works on the previous stage's row) and
 * Debate (proposer and opponent argue round by round, a judge decides). See
 * docs/components.md, "Pipelines and debates".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, libraryCtx, required, rowJson, stepTask } from "./common.js";

/** One stage of a ContentPipeline. */
export interface PipelineStage {
  /** The stage's node id. */
  id: string;
  agent: AgentOrChain;
  output: OutputTarget;
  label?: string;
  /** What the stage does (beyond SPEC.md; default: its label). The previous stage's row is appended. */
  prompt?: string;
}

export interface ContentPipelineProps {
  /** Default `pipeline` (the group's id; stages keep their own ids). */
  id?: string;
  stages: PipelineStage[];
  skipIf?: boolean;
}

/**
 * Stages one after another, each given the row of the stage before it.
 * @example
 * <ContentPipeline stages={[{ id: "outline", agent: planner, output: outputs.outline, prompt: "Outline a post on WAL mode" }, { id: "draft", agent: writer, output: outputs.draft }, { id: "edit", agent: editor, output: outputs.draft }]} />
 */
export function ContentPipeline(props: ContentPipelineProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "pipeline";
  const ctx = libraryCtx(`ContentPipeline "${id}"`);
  const stages = required(props.stages, `ContentPipeline "${id}" stages`);
  return createElement(TAGS.sequence, {
    id,
    children: stages.map((s, i) => {
      const prev = stages[i - 1];
      return stepTask(s.id, s.output, s.agent, () => {
        const ask = s.prompt ?? `Stage "${s.label ?? s.id}".`;
        return prev ? `${ask}\nWork from the previous stage (${prev.label ?? prev.id}): ${rowJson(ctx.latest(prev.output as never, prev.id) as Record<string, unknown> | undefined)}` : ask;
      }, s.label ? { label: s.label } : {});
    }),
  });
}

/**
 * Fields a Debate reads from an `argumentOutput` row.
 * @example
 * const schemas = { argument: debateArgumentSchema };
 */
export const debateArgumentSchema = z.object({ argument: z.string() });

export interface DebateProps {
  /** Default `debate`. */
  id?: string;
  proposer: AgentOrChain;
  opponent: AgentOrChain;
  judge: AgentOrChain;
  /** Default 2. */
  rounds?: number;
  /** Table of the arguments: `<id>:for-<round>` and `<id>:against-<round>`. */
  argumentOutput: OutputTarget;
  /** Table of the judge's verdict (`<id>:verdict`). */
  verdictOutput: OutputTarget;
  topic: string;
  skipIf?: boolean;
}

/**
 * Each round, the proposer argues for the topic and the opponent against it, each seeing the
 * debate so far; then the judge decides.
 * @example
 * <Debate topic="Rewrite the billing service in Rust" proposer={optimist} opponent={skeptic} judge={cto} rounds={3} argumentOutput={outputs.argument} verdictOutput={outputs.verdict} />
 */
export function Debate(props: DebateProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "debate";
  const ctx = libraryCtx(`Debate "${id}"`);
  const rounds = props.rounds ?? 2;
  const turns: Array<{ nodeId: string; side: "for" | "against"; round: number }> = [];
  for (let r = 1; r <= rounds; r++) turns.push({ nodeId: `${id}:for-${r}`, side: "for", round: r }, { nodeId: `${id}:against-${r}`, side: "against", round: r });
  const transcript = (upTo: number) =>
    turns
      .slice(0, upTo)
      .map((t) => {
        const row = ctx.latest(props.argumentOutput as never, t.nodeId) as Record<string, unknown> | undefined;
        return `Round ${t.round}, ${t.side}: ${typeof row?.argument === "string" ? row.argument : rowJson(row)}`;
      })
      .join("\n");
  return createElement(TAGS.sequence, {
    id,
    children: [
      ...turns.map((t, i) =>
        stepTask(t.nodeId, props.argumentOutput, t.side === "for" ? required(props.proposer, `Debate "${id}" proposer`) : required(props.opponent, `Debate "${id}" opponent`), () => {
          const so = i ? `\nThe debate so far:\n${transcript(i)}` : "";
          return `Debate: "${props.topic}". Round ${t.round} of ${rounds}: argue ${t.side === "for" ? "FOR" : "AGAINST"} it. Answer with JSON including \`argument\`.${so}`;
        }),
      ),
      stepTask(`${id}:verdict`, props.verdictOutput, required(props.judge, `Debate "${id}" judge`), () => `Judge the debate on "${props.topic}".\n${transcript(turns.length)}`),
    ],
  });
}
