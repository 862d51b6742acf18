/**
 * The scheduler (core/engine/scheduler.ts) over plans extracted from real trees: what is ready
 * when, how parallel limits hold slots, explicit dependencies, what a resume finds complete or
 * running, and the errors a plan that cannot progress gives. No store: it never reads one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Parallel, Sequence, Task, Workflow } from "../components/index.js";
import type { FlowNode } from "../jsx/element.js";
import { renderNodes } from "../jsx/render.js";
import { SchemaRegistry } from "../schema/registry.js";
import { extractPlan } from "./extract.js";
import type { PlanTask } from "./plan.js";
import { Scheduler } from "./scheduler.js";

const schemas = { out: z.object({ v: z.number() }) };
const registry = new SchemaRegistry(schemas, "sqlite");

/** A scheduler over `tree`; `complete`, `running` and `waiting` name node ids as a resume finds them. */
function schedule(tree: FlowNode, state: { complete?: string[]; running?: string[]; waiting?: string[]; pastIds?: string[] } = {}) {
  const extracted = extractPlan(renderNodes(tree, undefined), { registry, iterations: {}, seedIteration: () => 0, cacheByDefault: false, previous: null });
  const id = (key: string) => extracted.byKey.get(key)!.desc.nodeId;
  return new Scheduler({
    extracted,
    isComplete: (key) => state.complete?.includes(id(key)) ?? false,
    isNodeIdComplete: (nodeId) => state.pastIds?.includes(nodeId) ?? false,
    isRunning: (key) => state.running?.includes(id(key)) ?? false,
    isWaiting: (key) => state.waiting?.includes(id(key)) ?? false,
  });
}

const ids = (tasks: PlanTask[]) => tasks.map((t) => t.desc.nodeId);
const task = (id: string, dependsOn?: string[]) => (
  <Task id={id} output={schemas.out} {...(dependsOn ? { dependsOn } : {})}>
    {{ v: 1 }}
  </Task>
);
/** Takes what is ready, completes it, and returns the ids taken, step by step, until finished. */
function drain(s: Scheduler, free = 10): string[][] {
  const steps: string[][] = [];
  for (let taken = s.take(free); taken.length; taken = s.take(free)) {
    steps.push(ids(taken));
    for (const t of taken) {
      s.release(t);
      s.complete(t);
    }
  }
  return steps;
}

describe("scheduler", () => {
  it("runs a sequence one task at a time, and parallel children together", () => {
    const s = schedule(
      <Workflow name="w">
        <Sequence>
          {task("a")}
          {task("b")}
        </Sequence>
        <Parallel>
          {task("c")}
          {task("d")}
        </Parallel>
      </Workflow>,
    );
    expect(s.readyCount).toBe(1);
    expect(drain(s)).toEqual([["a"], ["b"], ["c", "d"]]);
    expect(s.finished).toBe(true);
    expect(s.readyCount).toBe(0);
  });

  it("holds a parallel group to maxConcurrency until a taken task is released", () => {
    const s = schedule(
      <Workflow name="w">
        <Parallel maxConcurrency={2}>
          {task("a")}
          {task("b")}
          {task("c")}
        </Parallel>
      </Workflow>,
    );
    const first = s.take(10);
    expect(ids(first)).toEqual(["a", "b"]);
    expect(s.take(10)).toEqual([]);
    s.complete(first[0]!);
    expect(s.take(10)).toEqual([]); // completing is not releasing: the slot is held until release
    s.release(first[0]!);
    expect(ids(s.take(10))).toEqual(["c"]);
    expect(s.finished).toBe(false);
  });

  it("starts a task with dependsOn once what it names completes, in any branch", () => {
    const s = schedule(
      <Workflow name="w">
        <Parallel>
          {task("late", ["early"])}
          <Sequence>
            {task("first")}
            {task("early")}
          </Sequence>
        </Parallel>
      </Workflow>,
    );
    expect(drain(s)).toEqual([["first"], ["early"], ["late"]]);
    expect(s.finished).toBe(true);
  });

  it("takes a resumed plan as it finds it: complete tasks skipped, running ones holding a slot, waiting ones left to their timer", () => {
    const tree = (
      <Workflow name="w">
        <Sequence>
          {task("a")}
          {task("b")}
        </Sequence>
        <Parallel maxConcurrency={2}>
          {task("c")}
          {task("d")}
          {task("e")}
        </Parallel>
      </Workflow>
    );
    const s = schedule(tree, { complete: ["a"], running: ["c"], waiting: ["d"] });
    // b runs (a is complete); then c, running already, holds one of the group's two slots and d
    // waits for its retry timer, so e alone starts, and the group is full.
    const [b] = s.take(10);
    expect(b?.desc.nodeId).toBe("b");
    s.release(b!);
    s.complete(b!);
    expect(ids(s.take(10))).toEqual(["e"]);
    expect(s.take(10)).toEqual([]);
    expect(schedule(tree, { complete: ["a", "b", "c", "d", "e"] }).finished).toBe(true);
  });

  it("refuses a task that depends on itself or on a node the workflow never had", () => {
    expect(() => schedule(<Workflow name="w">{task("a", ["a"])}</Workflow>)).toThrow(expect.objectContaining({ code: "RENDER_FAILED", details: { nodeId: "a" } }));
    expect(() => schedule(<Workflow name="w">{task("a", ["gone"])}</Workflow>)).toThrow(expect.objectContaining({ code: "RENDER_FAILED", details: { nodeId: "a", dependency: "gone" } }));
    // a node of an earlier render that completed counts as complete
    expect(ids(schedule(<Workflow name="w">{task("a", ["gone"])}</Workflow>, { pastIds: ["gone"] }).take(10))).toEqual(["a"]);
  });

  it("names the tasks that wait on each other when nothing can start", () => {
    const s = schedule(
      <Workflow name="w">
        <Parallel>
          {task("x", ["y"])}
          {task("y", ["x"])}
        </Parallel>
      </Workflow>,
    );
    expect(s.take(10)).toEqual([]);
    expect(s.stuck().sort()).toEqual(["x", "y"]);
  });
});
