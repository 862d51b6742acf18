/**
 * @module core/engine/alerts
 * Alerts on slow or stuck nodes (SPEC.md `FlowAlertPolicy`). Each rule with `afterMs` watches
 * every attempt: when one runs longer, an `AlertRaised` event is recorded with the rule's
 * routing (owner, severity, runbook, labels) and its reaction is applied: `emit-only`, `pause`
 * (the run pauses gracefully), `cancel`, `open-approval` (an operator is asked, in the pending
 * approvals list; the decision is recorded, not acted on), or `deliver` (POSTed as JSON to an
 * http(s) destination). See docs/alerts.md.
 */
import type { EventInit } from "./events.js";
import type { WriteBatch } from "./run-sql.js";
import type { FlowAlertPolicy } from "./types.js";
import { waitSql } from "./waits/wait-sql.js";
import type { ClockPort } from "../util/index.js";

export type ReactionKind = "emit-only" | "pause" | "cancel" | "open-approval" | "deliver";

export interface Alert {
  rule: string;
  nodeId: string;
  iteration: number;
  elapsedMs: number;
  severity: "info" | "warning" | "critical";
  owner?: string;
  runbook?: string;
  labels?: Record<string, string>;
  reaction: ReactionKind;
  destination?: string;
}

interface Rule {
  name: string;
  afterMs: number;
  alert: Omit<Alert, "nodeId" | "iteration" | "elapsedMs">;
}

export class AlertWatcher {
  private readonly rules: Rule[];
  private readonly timers = new Map<string, unknown[]>();

  constructor(
    policy: FlowAlertPolicy | undefined,
    private readonly clock: ClockPort,
    private readonly raise: (alert: Alert) => void,
  ) {
    this.rules = rulesOf(policy);
  }

  /** An attempt of `nodeId` started: arms its rules. */
  start(key: string, nodeId: string, iteration: number): void {
    if (this.rules.length === 0) return;
    const started = this.clock.now();
    this.timers.set(
      key,
      this.rules.map((r) =>
        this.clock.setTimeout(() => this.raise({ ...r.alert, nodeId, iteration, elapsedMs: this.clock.now() - started }), r.afterMs),
      ),
    );
  }

  /** The attempt ended: its alerts will not fire. */
  stop(key: string): void {
    for (const t of this.timers.get(key) ?? []) this.clock.clearTimeout(t);
    this.timers.delete(key);
  }

  stopAll(): void {
    for (const key of [...this.timers.keys()]) this.stop(key);
  }
}

function rulesOf(policy: FlowAlertPolicy | undefined): Rule[] {
  if (!policy?.rules) return [];
  const defaults = policy.defaults ?? {};
  return Object.entries(policy.rules).flatMap(([name, raw]) => {
    const rule = raw as { afterMs?: number; reaction?: string | { kind?: string; destination?: string }; owner?: string; severity?: Alert["severity"]; runbook?: string; labels?: Record<string, string> };
    if (typeof rule.afterMs !== "number") return [];
    const reaction = resolveReaction(rule.reaction, policy.reactions);
    return [
      {
        name,
        afterMs: rule.afterMs,
        alert: {
          rule: name,
          severity: rule.severity ?? defaults.severity ?? "warning",
          ...(rule.owner ?? defaults.owner ? { owner: rule.owner ?? defaults.owner } : {}),
          ...(rule.runbook ?? defaults.runbook ? { runbook: rule.runbook ?? defaults.runbook } : {}),
          ...(rule.labels ?? defaults.labels ? { labels: { ...defaults.labels, ...rule.labels } } : {}),
          reaction: reaction.kind,
          ...(reaction.destination ? { destination: reaction.destination } : {}),
        },
      },
    ];
  });
}

function resolveReaction(reaction: unknown, named: Record<string, unknown> | undefined): { kind: ReactionKind; destination?: string } {
  const kinds: ReactionKind[] = ["emit-only", "pause", "cancel", "open-approval", "deliver"];
  let r = reaction;
  if (typeof r === "string" && !kinds.includes(r as ReactionKind)) r = named?.[r];
  if (typeof r === "string") return { kind: r as ReactionKind };
  if (r && typeof r === "object") {
    const o = r as { kind?: string; destination?: string };
    const kind = kinds.includes(o.kind as ReactionKind) ? (o.kind as ReactionKind) : "emit-only";
    return o.destination ? { kind, destination: o.destination } : { kind };
  }
  return { kind: "emit-only" };
}

/** The `AlertRaised` event of an alert. */
export function alertEvent(alert: Alert): EventInit {
  return {
    type: "AlertRaised",
    nodeId: alert.nodeId,
    iteration: alert.iteration,
    rule: alert.rule,
    elapsedMs: alert.elapsedMs,
    severity: alert.severity,
    reaction: alert.reaction,
    ...(alert.owner ? { owner: alert.owner } : {}),
    ...(alert.runbook ? { runbook: alert.runbook } : {}),
    ...(alert.labels ? { labels: alert.labels } : {}),
  };
}

/** `open-approval`: asks an operator, in the pending approvals list (not blocking the run). */
export function openAlertApproval(batch: WriteBatch, runId: string, alert: Alert, now: number): void {
  waitSql.insert(batch, {
    runId,
    nodeId: `alert:${alert.rule}:${alert.nodeId}`,
    iteration: alert.iteration,
    kind: "approval",
    name: null,
    correlationId: null,
    request: { mode: "approve", request: { title: `Alert ${alert.rule}: ${alert.nodeId} is slow`, metadata: { ...alert } }, alert: true },
    deadlineMs: null,
    now,
  });
}

/** `deliver`: POSTs the alert as JSON to an http(s) destination; failures are warnings only. */
export async function deliverAlert(alert: Alert, runId: string, warn: (message: string) => void): Promise<void> {
  if (!alert.destination || !/^https?:\/\//.test(alert.destination)) {
    warn(`Alert ${alert.rule}: destination "${alert.destination ?? ""}" is not an http(s) URL; the alert was only recorded.`);
    return;
  }
  try {
    const res = await fetch(alert.destination, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId, ...alert }) });
    if (!res.ok) warn(`Alert ${alert.rule}: ${alert.destination} answered ${res.status}.`);
  } catch (error) {
    warn(`Alert ${alert.rule}: delivery to ${alert.destination} failed: ${String(error)}`);
  }
}
