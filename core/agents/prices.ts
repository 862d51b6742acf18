/**
 * @module core/agents/prices
 * What a model call costs (docs/agents.md, "Cost"): a price table per model in US dollars per
 * million tokens, which users extend or override (`RunOptions.prices`, `Gateway` `prices`), and
 * the cost of one usage under it. A cost the agent reports itself (Claude Code's
 * `total_cost_usd`, OpenCode's `cost`) wins over the table.
 *
 * Counting: `inputTokens` includes cache reads (as the AI SDK and the CLIs report them), so
 * cached tokens are charged at `cachedInput` and the rest at `input`; reasoning tokens are part
 * of `outputTokens` and charged at `output`.
 */
import type { AgentUsage } from "./types.js";

/**
 * Prices of one model, USD per million tokens.
 * @example
 * const price: ModelPrice = { input: 3, output: 15, cachedInput: 0.3 };
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cache reads; default `input`. */
  cachedInput?: number;
  /** Cache writes; default `input`. */
  cacheWrite?: number;
}

/** Model id (or id prefix) to price. */
export type PriceTable = Record<string, ModelPrice>;

/**
 * The prices Flow knows (list prices at the time of writing; override them for your contract).
 * Keys match a model id exactly, or as the longest prefix (`gpt-4o-2024-08-06` → `gpt-4o`),
 * after a `provider/` prefix is dropped.
 * @example
 * const sonnet = DEFAULT_PRICES["claude-sonnet-4-5"]; // { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = {
  "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cachedInput: 0.005 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  "o4-mini": { input: 1.1, output: 4.4, cachedInput: 0.275 },
  "claude-opus-4": { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 },
  "gemini-2.5-pro": { input: 1.25, output: 10, cachedInput: 0.31 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cachedInput: 0.075 },
};

/**
 * The price of a model: exact id, else the longest matching prefix; the user's table first.
 * @example
 * priceOf("openai/gpt-4o-2024-08-06"); // DEFAULT_PRICES["gpt-4o"]
 */
export function priceOf(model: string | undefined, table?: PriceTable): ModelPrice | undefined {
  if (!model) return undefined;
  const id = model.includes("/") ? model.slice(model.lastIndexOf("/") + 1) : model;
  for (const t of table ? [table, DEFAULT_PRICES] : [DEFAULT_PRICES]) {
    const exact = t[model] ?? t[id];
    if (exact) return exact;
    let best: string | undefined;
    for (const key of Object.keys(t)) if (id.startsWith(key) && (!best || key.length > best.length)) best = key;
    if (best) return t[best];
  }
  return undefined;
}

/**
 * Cost in USD of a usage: the cost the agent reported, else the table's price; undefined when
 * neither is known.
 * @example
 * costOf("gpt-4o", { inputTokens: 1_000_000, outputTokens: 100_000 }); // 3.5
 */
export function costOf(model: string | undefined, usage: AgentUsage | undefined, table?: PriceTable): number | undefined {
  if (!usage) return undefined;
  if (usage.costUsd !== undefined) return usage.costUsd;
  const price = priceOf(model, table);
  if (!price) return undefined;
  const cached = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, (usage.inputTokens ?? 0) - cached - written);
  const usd = plain * price.input + cached * (price.cachedInput ?? price.input) + written * (price.cacheWrite ?? price.input) + (usage.outputTokens ?? 0) * price.output;
  // Rounded to a billionth of a dollar, so sums stay readable.
  return Math.round(usd / 1e-3) / 1e9;
}
