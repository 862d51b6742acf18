/**
 * @module ui/components/format
 * Times and durations as people read them in a console.
 */
import { formatCount, plural } from "../../core/util/index.js";

/**
 * A duration: `850 ms`, `12.4 s`, `3 m 05 s`, `2 h 04 m`.
 * @example
 * formatDuration(185_000); // "3 m 05 s"
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} m`;
}

/**
 * A moment relative to `now`: `just now`, `5 s ago`, `3 min ago`, `2 h ago`, then the date.
 * @example
 * formatAgo(Date.now() - 90_000); // "1 min ago"
 */
export function formatAgo(atMs: number | null | undefined, now = Date.now()): string {
  if (atMs === null || atMs === undefined) return "—";
  const d = Math.max(0, now - atMs);
  if (d < 5000) return "just now";
  if (d < 60_000) return `${Math.floor(d / 1000)} s ago`;
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return formatDateTime(atMs);
}

// One formatter for every call: `Date#toLocaleString` builds a new one each time, which is slow
// enough to drop frames when a long list formats its rows while scrolling.
let dateTime: Intl.DateTimeFormat | undefined;

/**
 * A moment as a local date and time (`11/24/2026, 5:02:11 AM` in en-US).
 * @example
 * <span title={formatDateTime(run.createdAtMs)}>{formatAgo(run.createdAtMs)}</span>
 */
export function formatDateTime(atMs: number): string {
  dateTime ??= new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "medium" });
  return dateTime.format(atMs);
}

/**
 * A moment ahead of `now`: `in 12 s`, `in 5 min`, `in 3 h`, `in 2 d`, then the date; `now` when it passed.
 * @example
 * formatUntil(Date.now() + 300_000); // "in 5 min"
 */
export function formatUntil(atMs: number | null | undefined, now = Date.now()): string {
  if (atMs === null || atMs === undefined) return "—";
  const d = atMs - now;
  if (d <= 0) return "now";
  if (d < 60_000) return `in ${Math.ceil(d / 1000)} s`;
  if (d < 3_600_000) return `in ${Math.round(d / 60_000)} min`;
  if (d < 86_400_000) return `in ${Math.round(d / 3_600_000)} h`;
  if (d < 7 * 86_400_000) return `in ${Math.round(d / 86_400_000)} d`;
  return new Date(atMs).toLocaleString();
}

/**
 * A run id short enough for a list: a generated one (a UUID) its first 8 characters and what
 * follows the UUID (a child run's `/<node>@<n>`, which tells it from its parent), other ids up
 * to 16 characters whole, longer ones their start and end (a cron's runs share their start,
 * `cron-<cron id>-`, and differ at the end, the minute they were due).
 * @example
 * shortId("0d9c6a2e-5b1f-4a57-9a0e-2f6f2b1c9d41"); // "0d9c6a2e"
 * shortId("0d9c6a2e-5b1f-4a57-9a0e-2f6f2b1c9d41/draft@0"); // "0d9c6a2e…/draft@0"
 * shortId("cron-nightly-1795911480000"); // "cron-night…480000"
 */
export function shortId(id: string): string {
  const uuid = /^([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(.*)$/i.exec(id);
  if (uuid) return uuid[2] ? `${uuid[1]}…${uuid[2]}` : uuid[1]!;
  return id.length <= 16 ? id : `${id.slice(0, 10)}…${id.slice(-6)}`;
}

// Counts are formatted as the CLI formats them (core/util/count.ts).
export { formatCount, plural };

/**
 * Tokens and cost of agent work in a few words ("1,904 tokens · $0.0031"); undefined when
 * there is neither (no agent ran).
 * @example
 * formatUsage({ totalTokens: 1904, costUsd: 0.0031 }); // "1,904 tokens · $0.0031"
 */
export function formatUsage(u: { inputTokens?: number; outputTokens?: number; totalTokens?: number; costUsd?: number } | null | undefined): string | undefined {
  if (!u) return undefined;
  const tokens = u.totalTokens ?? (u.inputTokens !== undefined || u.outputTokens !== undefined ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0) : undefined);
  const parts = [tokens !== undefined ? plural(tokens, "token") : undefined, u.costUsd !== undefined ? formatCost(u.costUsd) : undefined].filter(Boolean);
  return parts.length ? parts.join(" · ") : undefined;
}

/**
 * US dollars with enough digits for a fraction of a cent ("$0.0031", "$1.24").
 * @example
 * formatCost(0.000125); // "$0.00013"
 */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd < 0.00001) return "< $0.00001";
  return `$${usd.toPrecision(2)}`;
}
