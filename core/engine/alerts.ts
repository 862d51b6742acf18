/**
 * @module core/engine/alerts
 * Alerts on slow or stuck nodes (SPEC.md `FlowAlertPolicy`). Each rule with `afterMs` watches
 * every attempt: when one runs longer, an `AlertRaised` event is recorded with the rule's
 * routing (owner, severity, runbook, labels) and its reaction is applied: `emit-only`, `pause`
 * (the run pauses gracefully), `cancel`, `open-approval` (an operator is asked, in the pending
 * approvals list; the decision is recorded, not acted on), or `deliver` (POSTed as JSON to an
 * http(s) destination). See docs/alerts.md.
 */
import type { FlowAlertPolicy } from "./types.js";
import type { ClockPort } from "./world.js";

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
