/**
 * @module core/components/library/kanban
 * Kanban: tickets move through columns; each column's agent works a ticket and hands it to the
 * next column. Tickets move independently (in parallel, up to `maxConcurrency`); the board is
 * pulled again each iteration until `until`. See docs/components.md, "Kanban".
 */
import { FlowError } from "../../errors.js";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { FlowCtx } from "../../engine/index.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, isAgentOrChain, libraryCtx, parallelGroup, rowJson, stepTask, type StepTaskProps } from "./common.js";

/** A ticket on the board: an `id` (names its tasks) and whatever else the agents need. */
export type KanbanTicket = { id: string | number } & Record<string, unknown>;

/** A column: who works tickets in it and where its rows go. */
export interface KanbanColumn {
  name: string;
  /** An agent or chain, or the name of one in the Kanban's `agents`. */
  agent: AgentOrChain | string;
  output: OutputTarget;
  /** What the column does with a ticket (a string, or a function of the ticket and the previous column's row). */
  prompt?: string | ((ticket: KanbanTicket, previous: Record<string, unknown> | undefined) => string);
  /** Extra props of the column's tasks. */
  task?: StepTaskProps;
}

export interface KanbanProps {
  /** Default `kanban`. */
  id?: string;
  columns: KanbanColumn[];
  /** The tickets on the board: a list, or a function of the render context (pulled again each iteration). */
  useTickets: KanbanTicket[] | ((ctx: FlowCtx) => KanbanTicket[]);
  /** Named agents columns may refer to. */
  agents?: Record<string, AgentOrChain>;
  /** Tickets worked at once (default: all). */
  maxConcurrency?: number;
  /** Rendered once every ticket has gone through every column (and `until` holds, when given). */
  onComplete?: FlowNode;
  /** Keep pulling tickets (a Loop) until true. Without it the board runs once. */
  until?: boolean;
  /** With `until`: iterations at most (default 5). */
  maxIterations?: number;
  skipIf?: boolean;
}

/**
 * Each ticket goes through the columns in order; a ticket done in every column is not worked
 * again in later iterations.
 * @example
 * <Kanban id="board" useTickets={(ctx) => ctx.input.issues} columns={[{ name: "triage", agent: "pm", output: outputs.triage }, { name: "fix", agent: coder, output: outputs.patch }, { name: "review", agent: reviewer, output: outputs.review }]} agents={{ pm }} maxConcurrency={3} />
 */
export function Kanban(props: KanbanProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "kanban";
  const ctx = libraryCtx(`Kanban "${id}"`);
  const columns = props.columns ?? [];
  if (!columns.length) throw new FlowError("RENDER_FAILED", `Kanban "${id}" needs at least one column.`);
  const tickets = typeof props.useTickets === "function" ? props.useTickets(ctx) : (props.useTickets ?? []);
  const agentOf = (c: KanbanColumn): AgentOrChain => {
    const a = typeof c.agent === "string" ? props.agents?.[c.agent] : c.agent;
    if (!isAgentOrChain(a)) throw new FlowError("RENDER_FAILED", `Kanban "${id}" column "${c.name}" has no agent${typeof c.agent === "string" ? ` named "${c.agent}" in agents` : ""}.`);
    return a;
  };
  const nodeOf = (t: KanbanTicket, c: KanbanColumn) => `${id}:${t.id}:${c.name}`;
  const last = columns.at(-1)!;
  const isDone = (t: KanbanTicket) => ctx.latest(last.output as never, nodeOf(t, last)) !== undefined;
  const open = tickets.filter((t) => !isDone(t));
  const board = parallelGroup(`${id}:board`, props.maxConcurrency, open.map((t) =>
      createElement(TAGS.sequence, {
        id: `${id}:${t.id}`,
        children: columns.map((c, i) =>
          stepTask(nodeOf(t, c), c.output, agentOf(c), () => {
            const prevCol = columns[i - 1];
            const previous = prevCol ? (ctx.latest(prevCol.output as never, nodeOf(t, prevCol)) as Record<string, unknown> | undefined) : undefined;
            if (typeof c.prompt === "function") return c.prompt(t, previous);
            return `${c.prompt ?? `Column "${c.name}": work this ticket.`}\nTicket: ${JSON.stringify(t)}${prevCol ? `\nFrom column "${prevCol.name}": ${rowJson(previous)}` : ""}`;
          }, c.task),
        ),
      }, String(t.id)),
    ));
  const complete = open.length === 0 && (props.until === undefined || props.until);
  const body = props.until === undefined ? board : createElement(TAGS.loop, { id, until: props.until, maxIterations: props.maxIterations ?? 5, children: board });
  return createElement(TAGS.sequence, { id: `${id}:group`, children: [body, complete && props.onComplete ? createElement(TAGS.sequence, { id: `${id}:complete`, children: props.onComplete }, "complete") : null] });
}
