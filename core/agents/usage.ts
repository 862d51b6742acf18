/**
 * @module core/agents/usage
 * Token usage in one flat shape ({@link AgentUsage}), read from the AI SDK's usage objects and
 * from the usage blocks CLIs print (`input_tokens`, `prompt_tokens`, `cached_input_tokens`,
 * `cache_read_input_tokens`, Pi's `input`/`output`/`cacheRead`, OpenCode's `tokens`), and summed
 * over the calls of one attempt (failover, schema corrections).
 */
import type { AgentUsage } from "./types.js";

const FIELDS: Record<keyof AgentUsage, string[]> = {
  inputTokens: ["inputTokens", "input_tokens", "prompt_tokens", "promptTokens", "input"],
  outputTokens: ["outputTokens", "output_tokens", "completion_tokens", "completionTokens", "output"],
  totalTokens: ["totalTokens", "total_tokens", "total"],
  cacheReadTokens: ["cacheReadTokens", "cachedInputTokens", "cache_read_input_tokens", "cached_input_tokens", "cacheRead"],
  cacheWriteTokens: ["cacheWriteTokens", "cache_creation_input_tokens", "cacheWrite"],
  reasoningTokens: ["reasoningTokens", "reasoning_tokens", "reasoning"],
  costUsd: ["costUsd", "total_cost_usd", "cost"],
};

/**
 * Reads any known usage shape; undefined when it has no number at all.
 * @example
 * normalizeUsage({ input_tokens: 10, output_tokens: 2 }); // { inputTokens: 10, outputTokens: 2, totalTokens: 12 }
 */
export function normalizeUsage(raw: unknown): AgentUsage | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  const out: AgentUsage = {};
  for (const [key, names] of Object.entries(FIELDS) as [keyof AgentUsage, string[]][]) {
    for (const name of names) {
      const v = numberIn(r[name]);
      if (v !== undefined) {
        out[key] = v;
        break;
      }
    }
  }
  // AI SDK 6 details objects and OpenCode's nested cache block.
  const inDetails = r.inputTokenDetails as Record<string, unknown> | undefined;
  const outDetails = r.outputTokenDetails as Record<string, unknown> | undefined;
  const cache = r.cache as Record<string, unknown> | undefined;
  out.cacheReadTokens ??= numberIn(inDetails?.cacheReadTokens) ?? numberIn(cache?.read);
  out.cacheWriteTokens ??= numberIn(inDetails?.cacheWriteTokens) ?? numberIn(cache?.write);
  out.reasoningTokens ??= numberIn(outDetails?.reasoningTokens);
  if (out.totalTokens === undefined && (out.inputTokens !== undefined || out.outputTokens !== undefined)) out.totalTokens = (out.inputTokens ?? 0) + (out.outputTokens ?? 0);
  for (const k of Object.keys(out) as (keyof AgentUsage)[]) if (out[k] === undefined) delete out[k];
  return Object.keys(out).length ? out : undefined;
}

/**
 * Sum of two usages (missing fields count as absent, not zero).
 * @example
 * addUsage({ inputTokens: 1 }, { inputTokens: 2, outputTokens: 1 }); // { inputTokens: 3, outputTokens: 1 }
 */
export function addUsage(a: AgentUsage | undefined, b: AgentUsage | undefined): AgentUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: AgentUsage = { ...a };
  for (const [k, v] of Object.entries(b) as [keyof AgentUsage, number][]) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * Tokens and cost summed over attempt metas (`_flow_attempts.meta_json`: `usage`, `costUsd`),
 * for a task, a run or many runs; `costUsd` is absent when no attempt had a known cost.
 * @example
 * const total = rollUpUsage((await db.listAttempts(runId)).map((a) => a.meta)); // { inputTokens: 22, ..., costUsd: 0.00005, attempts: 1 }
 */
export function rollUpUsage(metas: readonly unknown[]): AgentUsage & { attempts: number } {
  let usage: AgentUsage | undefined;
  let cost: number | undefined;
  let attempts = 0;
  for (const meta of metas) {
    const m = meta as { usage?: AgentUsage; costUsd?: number } | null | undefined;
    if (!m?.usage && m?.costUsd === undefined) continue;
    attempts++;
    const { costUsd: _reported, ...tokens } = m.usage ?? {};
    // A usage without a total counts input + output, as the app shows it and budgets read it.
    if (tokens.totalTokens === undefined && (tokens.inputTokens !== undefined || tokens.outputTokens !== undefined)) tokens.totalTokens = (tokens.inputTokens ?? 0) + (tokens.outputTokens ?? 0);
    usage = addUsage(usage, tokens);
    const c = m.costUsd ?? m.usage?.costUsd;
    if (typeof c === "number") cost = (cost ?? 0) + c;
  }
  return { ...usage, ...(cost !== undefined ? { costUsd: Math.round(cost * 1e9) / 1e9 } : {}), attempts };
}

function numberIn(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  // AI SDK 6 reports some counts as { total } objects in provider-level usage.
  if (value && typeof value === "object" && typeof (value as { total?: unknown }).total === "number") return (value as { total: number }).total;
  return undefined;
}
