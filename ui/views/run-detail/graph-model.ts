/**
 * @module ui/views/run-detail/graph-model
 * The graph of a run's task tree (ui/views/run-detail/tree-model.ts), laid out in layers: the
 * children of a Sequence (and of every other group but the parallel ones) follow one another
 * downwards, each step wired to the next; the children of a Parallel sit side by side in one
 * band, each wired from what came before and into what comes after. A simple layered layout of
 * our own: the tree already says which tasks run after which, so no general graph layout is
 * needed. Pure, so the view and tests share it (docs/app-views-run.md "Graph").
 */
import type { TreeItem, TreeTask } from "./tree-model.js";

/** Groups whose children run side by side. */
const SIDE_BY_SIDE = new Set(["parallel", "race", "all", "map"]);

/** A task placed on the grid: `layer` counts down from 0, `lane` across from 0. */
export interface GraphNode {
  task: TreeTask;
  layer: number;
  lane: number;
}

/** An edge between two placed tasks (by key). */
export interface GraphEdge {
  from: string;
  to: string;
}

/** A laid-out graph and the size of its grid. */
export interface RunGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  layers: number;
  lanes: number;
}

interface Block {
  nodes: GraphNode[];
  edges: GraphEdge[];
  layers: number;
  lanes: number;
  /** Keys of the tasks that start it and those that end it. */
  entries: string[];
  exits: string[];
}

const EMPTY: Block = { nodes: [], edges: [], layers: 0, lanes: 0, entries: [], exits: [] };

const moved = (b: Block, layer: number, lane: number): Block => (layer === 0 && lane === 0 ? b : { ...b, nodes: b.nodes.map((n) => ({ ...n, layer: n.layer + layer, lane: n.lane + lane })) });

function series(blocks: Block[]): Block {
  let out = EMPTY;
  for (const b of blocks) {
    if (b.nodes.length === 0) continue;
    if (out.nodes.length === 0) {
      out = b;
      continue;
    }
    const next = moved(b, out.layers, 0);
    const wires = out.exits.flatMap((from) => b.entries.map((to) => ({ from, to })));
    out = { nodes: [...out.nodes, ...next.nodes], edges: [...out.edges, ...next.edges, ...wires], layers: out.layers + b.layers, lanes: Math.max(out.lanes, b.lanes), entries: out.entries, exits: b.exits };
  }
  return out;
}

function sideBySide(blocks: Block[]): Block {
  let out = EMPTY;
  for (const b of blocks) {
    if (b.nodes.length === 0) continue;
    const next = moved(b, 0, out.lanes);
    out = { nodes: [...out.nodes, ...next.nodes], edges: [...out.edges, ...next.edges], layers: Math.max(out.layers, b.layers), lanes: out.lanes + b.lanes, entries: [...out.entries, ...b.entries], exits: [...out.exits, ...b.exits] };
  }
  return out;
}

function block(item: TreeItem): Block {
  if (item.kind === "task") return { nodes: [{ task: item, layer: 0, lane: 0 }], edges: [], layers: 1, lanes: 1, entries: [item.key], exits: [item.key] };
  const children = item.children.map(block);
  return SIDE_BY_SIDE.has(item.element) ? sideBySide(children) : series(children);
}

/**
 * Lays out a run's tree (its top level runs in sequence).
 * @example
 * const g = layoutGraph(buildTree(xml, tasks, nodes));
 * g.nodes[0]; // { task, layer: 0, lane: 0 }
 */
export function layoutGraph(items: TreeItem[]): RunGraph {
  const { nodes, edges, layers, lanes } = series(items.map(block));
  return { nodes, edges, layers, lanes };
}
