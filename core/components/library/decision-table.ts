/**
 * @module core/components/library/decision-table
 * DecisionTable: rules of `when` booleans and what to run, evaluated at each render. See
 * docs/components.md, "DecisionTable".
 */
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";

/** One rule: when `when` holds, `then` runs. */
export interface DecisionRule {
  when: boolean;
  then: FlowNode;
  label?: string;
}

export interface DecisionTableProps {
  /** Default `decision`. */
  id?: string;
  rules: DecisionRule[];
  /** Runs when no rule matches. */
  default?: FlowNode;
  /** `first-match` (default): only the first matching rule; `all-match`: every matching rule, in order. */
  strategy?: "first-match" | "all-match";
  skipIf?: boolean;
}

/**
 * Indexes of the rules that apply under a strategy.
 * @example
 * matchingRules([{ when: false, then: null }, { when: true, then: null }], "first-match"); // [1]
 */
export function matchingRules(rules: readonly DecisionRule[], strategy: DecisionTableProps["strategy"]): number[] {
  const hits = rules.flatMap((r, i) => (r.when === true ? [i] : []));
  return strategy === "all-match" ? hits : hits.slice(0, 1);
}

/**
 * Picks what runs from a table of rules; the chosen rules are shown in frames as
 * `flow:decision` groups with their label.
 * @example
 * <DecisionTable rules={[{ when: pr.linesChanged > 500, then: <Task id="split" .../>, label: "too big" }, { when: pr.touchesAuth, then: <Task id="security-review" .../> }]} default={<Task id="merge" .../>} />
 */
export function DecisionTable(props: DecisionTableProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "decision";
  const hits = matchingRules(props.rules ?? [], props.strategy);
  const chosen = hits.length
    ? hits.map((i) => createElement(TAGS.sequence, { id: `${id}:rule-${i + 1}`, label: props.rules[i]!.label ?? `rule ${i + 1}`, children: props.rules[i]!.then }, `rule-${i + 1}`))
    : props.default !== undefined
      ? [createElement(TAGS.sequence, { id: `${id}:default`, label: "default", children: props.default }, "default")]
      : [];
  return createElement(TAGS.sequence, { id, strategy: props.strategy ?? "first-match", matched: hits.map((i) => i + 1).join(",") || "none", children: chosen });
}
