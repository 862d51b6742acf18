/**
 * @module ui/views/run-detail/tree-model
 * The task tree of a run: the latest frame's structure (its XML: Sequence, Parallel, Loop,
 * Branch... around the tasks) with each task's live node state. Tasks the XML does not place
 * (no frame structure loaded yet) are listed flat after it, so nothing is ever hidden.
 */
import type { GatewayRunNode, GatewayRunTreeRow } from "../../../core/data/index.js";
import type { XmlNode } from "../../../core/jsx/index.js";

/** A task of the tree (one node iteration). */
export interface TreeTask {
  kind: "task";
  /** `<nodeId>#<iteration>`. */
  key: string;
  nodeId: string;
  iteration: number;
  label: string | null;
  /** The element kind that declared it (`task`, `approval`, `signal`...). */
  element: string;
  state: string;
  attempts: number;
}

/** A structural element (Sequence, Parallel, Loop, Branch, ...) and what it holds. */
export interface TreeGroup {
  kind: "group";
  /** A path key, stable across frames of the same structure. */
  key: string;
  element: string;
  /** `id` of the element when it has one (loops, named groups). */
  id: string | null;
  children: TreeItem[];
  /** Tasks below it, and how many of them finished. */
  total: number;
  finished: number;
  /** The state that most needs attention below it (failed, then running, then waiting...). */
  state: string;
}

/** A row of the tree: a task or a group of them. */
export type TreeItem = TreeTask | TreeGroup;

const ATTENTION = ["failed", "in-progress", "waiting-approval", "waiting-event", "waiting-timer", "pending", "cancelled", "skipped", "finished"];
const rank = (state: string) => {
  const i = ATTENTION.indexOf(state);
  return i < 0 ? ATTENTION.length : i;
};

/** An element's kind without the `flow:` prefix. */
const elementOf = (tag: string) => tag.replace(/^flow:/, "");

/**
 * Builds the tree of a frame.
 * @example
 * const items = buildTree(frame.xml, treeRows, nodeRows); // [{ kind: "group", element: "sequence", children: [...] }]
 */
export function buildTree(xml: XmlNode | null, tasks: GatewayRunTreeRow[], nodes: GatewayRunNode[]): TreeItem[] {
  const byNode = new Map<string, GatewayRunNode>(nodes.map((n) => [`${n.nodeId}#${n.iteration}`, n]));
  const tasksById = new Map<string, GatewayRunTreeRow[]>();
  for (const t of tasks) tasksById.set(t.nodeId, [...(tasksById.get(t.nodeId) ?? []), t]);
  const placed = new Set<string>();
  const leaf = (t: GatewayRunTreeRow, element: string): TreeTask => {
    const key = `${t.nodeId}#${t.iteration}`;
    placed.add(key);
    const node = byNode.get(key);
    return { kind: "task", key, nodeId: t.nodeId, iteration: t.iteration, label: t.label ?? node?.label ?? null, element, state: node?.state ?? "pending", attempts: node?.attempts.length ?? 0 };
  };
  const visit = (x: XmlNode, path: string): TreeItem[] => {
    if (x.kind !== "element") return [];
    const element = elementOf(x.tag);
    const own = x.props.id ? tasksById.get(x.props.id) : undefined;
    if (own) return own.map((t) => leaf(t, element));
    const children = x.children.flatMap((c, i) => visit(c, `${path}.${i}`));
    if (children.length === 0) return [];
    if (element === "workflow") return children;
    return [group(`${path}:${element}`, element, x.props.id ?? null, children)];
  };
  const items = xml ? visit(xml, "0") : [];
  const rest = tasks.filter((t) => !placed.has(`${t.nodeId}#${t.iteration}`)).map((t) => leaf(t, "task"));
  return [...items, ...rest];
}

function group(key: string, element: string, id: string | null, children: TreeItem[]): TreeGroup {
  let total = 0;
  let finished = 0;
  let state = "finished";
  for (const c of children) {
    const [t, f] = c.kind === "task" ? [1, c.state === "finished" || c.state === "skipped" ? 1 : 0] : [c.total, c.finished];
    total += t;
    finished += f;
    if (rank(c.state) < rank(state)) state = c.state;
  }
  return { kind: "group", key, element, id, children, total, finished, state };
}

/**
 * The items a person can reach with the keyboard: every item whose groups are all expanded, in order, with its depth and parent.
 * @example
 * const rows = visibleItems(items, collapsed); // [{ item, depth: 0, parent: undefined }, ...]
 */
export function visibleItems(items: TreeItem[], collapsed: ReadonlySet<string>): Array<{ item: TreeItem; depth: number; parent: TreeGroup | undefined }> {
  const out: Array<{ item: TreeItem; depth: number; parent: TreeGroup | undefined }> = [];
  const walk = (list: TreeItem[], depth: number, parent: TreeGroup | undefined) => {
    for (const item of list) {
      out.push({ item, depth, parent });
      if (item.kind === "group" && !collapsed.has(item.key)) walk(item.children, depth + 1, item);
    }
  };
  walk(items, 0, undefined);
  return out;
}

/**
 * A group's heading: its element as people name it, with its id when it has one.
 * @example
 * groupTitle({ element: "parallel", id: null }); // "Parallel"
 */
export function groupTitle(g: Pick<TreeGroup, "element" | "id">): string {
  const name = g.element.charAt(0).toUpperCase() + g.element.slice(1);
  return g.id ? `${name} ${g.id}` : name;
}
