/**
 * @module ui/views/approvals/approval-model
 * What the inbox reads from a pending approval or human task (`GatewayApprovalRow.request`,
 * as core/engine/waits/wait-manager.ts records it) and how it words a decision: the mode that
 * picks the item's actions, its title, who may decide, when it falls due, and the winning
 * decision when someone else decided first.
 */
import type { GatewayApprovalRow } from "../../../core/data/index.js";
import { splitFirstLine } from "../../../core/util/index.js";

/** The actions an item offers: approve/deny (gate: a task waits on it; decision: its row is the decision), one option, an order of options, or a human task's row. */
export type ItemMode = "gate" | "decision" | "select" | "rank" | "human";

/** An option of a select or rank approval. */
export interface ApprovalOption {
  key: string;
  label: string;
  summary?: string;
}

interface RecordedRequest {
  mode?: string;
  request?: { title?: string; summary?: string; metadata?: Record<string, unknown> };
  options?: ApprovalOption[];
  allowedScopes?: string[];
  allowedUsers?: string[];
  gatesTask?: boolean;
  autoAtMs?: number;
  timeoutAtMs?: number;
  prompt?: string;
  outputTable?: string;
}

const requestOf = (row: Pick<GatewayApprovalRow, "request">) => (row.request ?? {}) as RecordedRequest;

/**
 * The item's mode.
 * @example
 * modeOf({ kind: "approval", request: { mode: "select", options: [] } }); // "select"
 */
export function modeOf(row: Pick<GatewayApprovalRow, "kind" | "request">): ItemMode {
  if (row.kind === "human") return "human";
  const r = requestOf(row);
  if (r.mode === "select" || r.mode === "rank") return r.mode;
  return r.gatesTask ? "gate" : "decision";
}

/**
 * The item's title (the approval's request title, or the human task's prompt) and summary. A
 * prompt of several lines is titled by its first line; the rest (the text to work on, often)
 * is its summary, its lines kept.
 * @example
 * titleOf(row); // { title: "Ship api to production?", summary: "4 test shards passed." }
 * titleOf(human); // { title: "Give this draft a headline:", summary: "This month is about Rust. ..." }
 */
export function titleOf(row: Pick<GatewayApprovalRow, "kind" | "request" | "nodeId">): { title: string; summary: string | null } {
  const r = requestOf(row);
  if (row.kind === "human") {
    const { first, rest } = splitFirstLine(r.prompt ?? "");
    return { title: first || `Fill in ${row.nodeId}`, summary: rest || null };
  }
  return { title: r.request?.title || `Approve ${row.nodeId}`, summary: r.request?.summary ?? null };
}

/**
 * The options of a select or rank approval.
 * @example
 * optionsOf(row).map((o) => o.label);
 */
export function optionsOf(row: Pick<GatewayApprovalRow, "request">): ApprovalOption[] {
  return requestOf(row).options ?? [];
}

/**
 * Who may decide, as a line (null when anyone may).
 * @example
 * whoMayDecide({ request: { allowedUsers: ["ana"], allowedScopes: ["release"] } }); // "users ana · scope release"
 */
export function whoMayDecide(row: Pick<GatewayApprovalRow, "request">): string | null {
  const r = requestOf(row);
  const parts = [
    r.allowedUsers?.length ? `${r.allowedUsers.length > 1 ? "users" : "user"} ${r.allowedUsers.join(", ")}` : null,
    r.allowedScopes?.length ? `${r.allowedScopes.length > 1 ? "scopes" : "scope"} ${r.allowedScopes.join(", ")}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(" · ") : null;
}

/**
 * When the item falls due: it approves itself (`autoApprove.after`) or times out.
 * @example
 * dueOf(row); // { what: "auto-approves", atMs: 1767225600000 }
 */
export function dueOf(row: Pick<GatewayApprovalRow, "request" | "deadlineMs">): { what: string; atMs: number } | null {
  const r = requestOf(row);
  if (typeof r.autoAtMs === "number") return { what: "auto-approves", atMs: r.autoAtMs };
  if (typeof r.timeoutAtMs === "number") return { what: "times out", atMs: r.timeoutAtMs };
  return row.deadlineMs !== null ? { what: "due", atMs: row.deadlineMs } : null;
}

/**
 * A decision as a sentence: `approved by ana: “go”`, `denied`, `selected payroll`,
 * `ranked b, a, c`, `submitted by dan`.
 * @example
 * describeResolution({ approved: false, note: "not today" }, "bob"); // "denied by bob: “not today”"
 */
export function describeResolution(resolution: Record<string, unknown> | null, resolvedBy: string | null): string {
  if (!resolution) return "decided";
  const by = resolvedBy ?? (resolution.decidedBy as string | null | undefined) ?? null;
  const note = (resolution.note ?? resolution.notes) as string | null | undefined;
  const what =
    typeof resolution.approved === "boolean"
      ? resolution.approved
        ? "approved"
        : "denied"
      : typeof resolution.selected === "string"
        ? `selected ${resolution.selected}`
        : Array.isArray(resolution.ranked)
          ? `ranked ${(resolution.ranked as string[]).join(", ")}`
          : "submitted";
  return `${what}${by ? ` by ${by}` : ""}${note ? `: “${note}”` : ""}`;
}

/**
 * The list with the item at `index` moved by `delta` places (clamped to the ends).
 * @example
 * moveItem(["a", "b", "c"], 2, -1); // ["a", "c", "b"]
 */
export function moveItem<T>(list: readonly T[], index: number, delta: number): T[] {
  const to = Math.max(0, Math.min(list.length - 1, index + delta));
  const out = [...list];
  const [item] = out.splice(index, 1);
  if (item !== undefined) out.splice(to, 0, item);
  return out;
}
