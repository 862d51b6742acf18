/**
 * @module core/components/library/gather
 * Fan-out patterns: GatherAndSynthesize (many sources at once, one synthesis) and
 * ClassifyAndRoute (classify each item, hand it to its category's agent). See
 * docs/components.md, "Fan-out".
 */
import { z } from "zod";
import { FlowError } from "../../errors.js";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, isAgentOrChain, libraryCtx, parallelGroup, required, rowJson, stepTask } from "./common.js";

/** One source of a GatherAndSynthesize. */
export interface GatherSource {
  agent: AgentOrChain;
  /** What it is asked (or `children`, as a Task's prompt). */
  prompt?: string;
  /** Its own table (default: `gatherOutput`). */
  output?: OutputTarget;
  children?: string;
}

export interface GatherAndSynthesizeProps {
  /** Default `gather`. */
  id?: string;
  /** Name to source; each runs as `<id>:<name>`. */
  sources: Record<string, GatherSource>;
  synthesizer: AgentOrChain;
  gatherOutput: OutputTarget;
  /** Table of the synthesis (`<id>:synthesis`). */
  synthesisOutput: OutputTarget;
  /** Formats the gathered rows (by source name) for the synthesizer (default: JSON per source). */
  gatheredResults?: (rows: Record<string, Record<string, unknown> | undefined>) => string;
  maxConcurrency?: number;
  /** Default: "Synthesize the gathered results into one answer." */
  synthesisPrompt?: string;
  skipIf?: boolean;
}

/**
 * Asks every source at once, then the synthesizer, with all their rows.
 * @example
 * <GatherAndSynthesize id="market" sources={{ news: { agent: searcher, prompt: "News on ACME" }, filings: { agent: analyst, prompt: "ACME's last 10-K" } }} synthesizer={writer} gatherOutput={outputs.finding} synthesisOutput={outputs.brief} />
 */
export function GatherAndSynthesize(props: GatherAndSynthesizeProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "gather";
  const ctx = libraryCtx(`GatherAndSynthesize "${id}"`);
  const sources = Object.entries(required(props.sources, `GatherAndSynthesize "${id}" sources`));
  const gathered = () => {
    const out: Record<string, Record<string, unknown> | undefined> = {};
    for (const [name, s] of sources) out[name] = ctx.latest((s.output ?? props.gatherOutput) as never, `${id}:${name}`) as Record<string, unknown> | undefined;
    return out;
  };
  const format = props.gatheredResults ?? ((rows) => Object.entries(rows).map(([name, row]) => `${name}: ${rowJson(row)}`).join("\n"));
  return createElement(TAGS.sequence, {
    id,
    children: [
      parallelGroup(`${id}:sources`, props.maxConcurrency, sources.map(([name, s]) => stepTask(`${id}:${name}`, s.output ?? props.gatherOutput, s.agent, () => s.prompt ?? s.children ?? `Gather what you can as source "${name}".`))),
      stepTask(`${id}:synthesis`, props.synthesisOutput, required(props.synthesizer, `GatherAndSynthesize "${id}" synthesizer`), () => `${props.synthesisPrompt ?? "Synthesize the gathered results into one answer."}\n${format(gathered())}`),
    ],
  });
}

/**
 * Fields ClassifyAndRoute reads from a `classifierOutput` row (default `classificationResult`).
 * @example
 * const schemas = { label: classificationSchema.extend({ confidence: z.number() }) };
 */
export const classificationSchema = z.object({ category: z.string() });

/** A category: its agent, or its agent with its own table and prompt. */
export type RouteCategory = AgentOrChain | { agent: AgentOrChain; output?: OutputTarget; prompt?: string };

export interface ClassifyAndRouteProps {
  /** Default `route`. */
  id?: string;
  /** What to classify: strings, or objects (an `id` field names the item's tasks). */
  items: Array<string | Record<string, unknown>>;
  /** Category name to who handles it. */
  categories: Record<string, RouteCategory>;
  classifierAgent: AgentOrChain;
  /** Table of the classifications (`<id>:classify-<item>`), each naming a `category`. */
  classifierOutput: OutputTarget;
  /** Table of the handlers' rows (`<id>:handle-<item>`) unless the category has its own. */
  routeOutput: OutputTarget;
  /** The category of a classification row (default: `row.category`). */
  classificationResult?: (row: Record<string, unknown>) => string;
  maxConcurrency?: number;
  skipIf?: boolean;
}

/**
 * Classifies every item (in parallel), then hands each to its category's agent. An item whose
 * category is not in `categories` fails the run with ROUTE_UNKNOWN_CATEGORY, unless there is a
 * category named `default`.
 * @example
 * <ClassifyAndRoute id="tickets" items={tickets} categories={{ bug: triager, billing: { agent: finance, output: outputs.refund } }} classifierAgent={router} classifierOutput={outputs.label} routeOutput={outputs.reply} />
 */
export function ClassifyAndRoute(props: ClassifyAndRouteProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "route";
  const ctx = libraryCtx(`ClassifyAndRoute "${id}"`);
  const categories = required(props.categories, `ClassifyAndRoute "${id}" categories`);
  const names = Object.keys(categories);
  const categoryOf = props.classificationResult ?? ((row) => String(row.category));
  const items = required(props.items, `ClassifyAndRoute "${id}" items`);
  return parallelGroup(id, props.maxConcurrency, items.map((item, i) => {
      const key = typeof item === "object" && item !== null && (typeof item.id === "string" || typeof item.id === "number") ? String(item.id) : String(i);
      const text = typeof item === "string" ? item : JSON.stringify(item);
      const classified = ctx.outputMaybe(props.classifierOutput as never, { nodeId: `${id}:classify-${key}` }) as Record<string, unknown> | undefined;
      let handler: FlowNode = null;
      if (classified) {
        const category = categoryOf(classified);
        const chosen = categories[category] ?? categories.default;
        if (!chosen) {
          handler = createElement(TAGS.fail, { id: `${id}:unrouted-${key}`, error: { code: "ROUTE_UNKNOWN_CATEGORY", message: `ClassifyAndRoute "${id}": item ${key} was classified as "${category}", which is not one of ${names.join(", ")}; add the category or a "default" one.`, details: { itemKey: key, category } } }, "unrouted");
        } else {
          const c = isAgentOrChain(chosen) ? { agent: chosen } : chosen;
          if (!isAgentOrChain(c.agent)) throw new FlowError("RENDER_FAILED", `ClassifyAndRoute "${id}" category "${category}" has no agent.`);
          handler = stepTask(`${id}:handle-${key}`, c.output ?? props.routeOutput, c.agent, () => `${c.prompt ?? `Handle this ${category} item.`}\nItem: ${text}`);
        }
      }
      return createElement(TAGS.sequence, {
        children: [
          stepTask(`${id}:classify-${key}`, props.classifierOutput, required(props.classifierAgent, `ClassifyAndRoute "${id}" classifierAgent`), () => `Classify this item into one of: ${names.filter((n) => n !== "default").join(", ")}. Answer with JSON including \`category\`.\nItem: ${text}`),
          handler,
        ],
      }, key);
    }));
}
