/**
 * @module core/components/library/panel
 * Panel: several panelists answer the same question at once, a moderator concludes, by
 * synthesis, by vote, or by consensus of at least `minAgree`. See docs/components.md, "Panel".
 */
import { isAgentLike } from "../../agents/index.js";
import { FlowError } from "../../errors.js";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, isAgentOrChain, libraryCtx, parallelGroup, required, rowJson, stepTask, type StepTaskProps } from "./common.js";

/** A panelist: an agent, a failover chain, or an agent with a role and label. */
export type Panelist = AgentOrChain | { agent: AgentOrChain; role?: string; label?: string };

/** Task props a Panel passes to its panelists' or moderator's tasks. */
export type PanelTaskProps = Pick<StepTaskProps, "continueOnFail" | "timeoutMs" | "heartbeatTimeoutMs" | "retries">;

export interface PanelProps {
  /** Default `panel`. */
  id?: string;
  panelists: Panelist[];
  moderator: AgentOrChain;
  /** Table of each panelist's row (`<id>:panelist-<n>`); with `vote`/`consensus` it holds `vote` (a string). */
  panelistOutput: OutputTarget;
  /** Table of the moderator's row (`<id>:moderator`). */
  moderatorOutput: OutputTarget;
  /** Default `synthesize`. */
  strategy?: "synthesize" | "vote" | "consensus";
  /** `consensus`: votes needed for agreement (default: every panelist); `vote`: at least this many for the winner (default 1). */
  minAgree?: number;
  maxConcurrency?: number;
  panelistTaskProps?: PanelTaskProps;
  moderatorTaskProps?: PanelTaskProps;
  /** The question put to the panel (beyond SPEC.md). */
  prompt?: string;
  skipIf?: boolean;
}

/** How panelists' votes came out. */
export interface PanelTally {
  counts: Record<string, number>;
  winner: string | null;
  agreed: boolean;
}

/**
 * Counts `vote` fields; `agreed` when the leading option (a tie has none) has at least `minAgree` votes.
 * @example
 * tallyVotes([{ vote: "a" }, { vote: "a" }, { vote: "b" }], 2); // { counts: { a: 2, b: 1 }, winner: "a", agreed: true }
 */
export function tallyVotes(rows: Array<Record<string, unknown> | undefined>, minAgree: number): PanelTally {
  const counts: Record<string, number> = {};
  for (const r of rows) if (r && typeof r.vote === "string") counts[r.vote] = (counts[r.vote] ?? 0) + 1;
  const ranked = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const top = ranked[0];
  const tied = top !== undefined && ranked[1] !== undefined && ranked[1][1] === top[1];
  const winner = top && !tied ? top[0] : null;
  return { counts, winner, agreed: winner !== null && top![1] >= minAgree };
}

/**
 * Panelists answer in parallel; the moderator concludes from their rows (and, for `vote` and
 * `consensus`, from the tally it is given).
 * @example
 * <Panel id="arch" panelists={[{ agent: claude, role: "security" }, { agent: gpt, role: "cost" }, gemini]} moderator={lead} panelistOutput={outputs.opinion} moderatorOutput={outputs.decision} strategy="consensus" minAgree={2} prompt="Should we move to event sourcing?" />
 */
export function Panel(props: PanelProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "panel";
  const ctx = libraryCtx(`Panel "${id}"`);
  const panelists = required(props.panelists, `Panel "${id}" panelists`).map((p, i) => normalize(p, i, id));
  const strategy = props.strategy ?? "synthesize";
  const minAgree = props.minAgree ?? (strategy === "consensus" ? panelists.length : 1);
  const question = props.prompt ?? "Give your view.";
  const ids = panelists.map((_, i) => `${id}:panelist-${i + 1}`);
  const rows = () => ids.map((nodeId) => ctx.latest(props.panelistOutput as never, nodeId) as Record<string, unknown> | undefined);
  const voteAsk = strategy === "synthesize" ? "" : "\nAnswer with JSON including `vote` (your choice, a short string).";
  return createElement(TAGS.sequence, {
    id,
    children: [
      parallelGroup(`${id}:panelists`, props.maxConcurrency, panelists.map((p, i) =>
          stepTask(ids[i]!, props.panelistOutput, p.agent, () => `${p.role ? `You are the panel's ${p.role}. ` : ""}${question}${voteAsk}`, { ...props.panelistTaskProps, ...(p.label ? { label: p.label } : {}) }),
        )),
      stepTask(`${id}:moderator`, props.moderatorOutput, required(props.moderator, `Panel "${id}" moderator`), () => {
        const answers = rows()
          .map((r, i) => `${panelists[i]!.label ?? panelists[i]!.role ?? `Panelist ${i + 1}`}: ${rowJson(r)}`)
          .join("\n");
        const base = `You moderate a panel on: ${question}\nAnswers:\n${answers}\n`;
        if (strategy === "synthesize") return `${base}Synthesize one answer from them.`;
        const t = tallyVotes(rows(), minAgree);
        const tally = `Votes: ${JSON.stringify(t.counts)}.`;
        if (strategy === "vote") return `${base}${tally} ${t.agreed ? `The vote chose "${t.winner}": write the decision for it.` : `No option won (a tie, or fewer than ${minAgree} votes): decide, and say why.`}`;
        return `${base}${tally} ${t.agreed ? `Consensus reached on "${t.winner}" (${minAgree} needed): write it up.` : `No consensus (${minAgree} of ${panelists.length} needed): report the disagreement.`}`;
      }, props.moderatorTaskProps),
    ],
  });
}

function normalize(p: Panelist, i: number, id: string): { agent: AgentOrChain; role?: string; label?: string } {
  if (isAgentOrChain(p)) return { agent: p };
  if (p && typeof p === "object" && !isAgentLike(p) && isAgentOrChain((p as { agent?: unknown }).agent)) return p as { agent: AgentOrChain; role?: string; label?: string };
  throw new FlowError("RENDER_FAILED", `Panel "${id}" panelist ${i + 1} is not an agent, a chain of agents, or { agent, role?, label? }.`);
}
