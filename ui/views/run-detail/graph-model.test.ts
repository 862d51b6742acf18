import { describe, expect, it } from "vitest";
import { layoutGraph } from "./graph-model.js";
import type { TreeGroup, TreeItem, TreeTask } from "./tree-model.js";

const task = (nodeId: string, state = "pending"): TreeTask => ({ kind: "task", key: `${nodeId}#0`, nodeId, iteration: 0, label: null, element: "task", state, attempts: 0 });
const group = (element: string, children: TreeItem[]): TreeGroup => ({ kind: "group", key: element, element, id: null, children, total: children.length, finished: 0, state: "pending" });

describe("layoutGraph: a run's tree in layers", () => {
  it("puts a sequence's steps one under another and a parallel's side by side, wired", () => {
    const g = layoutGraph([group("sequence", [task("a"), group("parallel", [task("b"), group("sequence", [task("c"), task("d")])]), task("e")])]);
    const at = Object.fromEntries(g.nodes.map((n) => [n.task.nodeId, [n.layer, n.lane]]));
    expect(at).toEqual({ a: [0, 0], b: [1, 0], c: [1, 1], d: [2, 1], e: [3, 0] });
    expect(g.layers).toBe(4);
    expect(g.lanes).toBe(2);
    const edges = g.edges.map((e) => `${e.from[0]}>${e.to[0]}`).sort();
    expect(edges).toEqual(["a>b", "a>c", "b>e", "c>d", "d>e"]);
  });

  it("lays out a flat list (no structure loaded) as a chain, and nothing as an empty grid", () => {
    const g = layoutGraph([task("x"), task("y")]);
    expect(g.nodes.map((n) => n.layer)).toEqual([0, 1]);
    expect(g.edges).toEqual([{ from: "x#0", to: "y#0" }]);
    expect(layoutGraph([])).toEqual({ nodes: [], edges: [], layers: 0, lanes: 0 });
  });
});
