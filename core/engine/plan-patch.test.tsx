/**
 * A full render that keeps the plan (plan-patch.ts) or carries descriptors over (extract.ts
 * `previous`) must give exactly what a fresh extraction of the same tree gives: the same
 * descriptors with the new render's functions, the same frame value, and the same frame delta
 * from the previous frame, though the new frame shares the unchanged parts of the old one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Parallel, Sequence, Task, Workflow } from "../components/index.js";
import type { FlowNode } from "../jsx/element.js";
import { type HostNode, toXml } from "../jsx/host.js";
import { renderNodes } from "../jsx/render.js";
import { SchemaRegistry } from "../schema/registry.js";
import { adoptDescriptor, type Extracted, extractPlan } from "./extract.js";
import { frameXmlOf } from "./frame-xml.js";
import { diffJson } from "./frames.js";
import type { FrameValue } from "./incremental-render.js";
import { patchPlan } from "./plan-patch.js";
import { frameTaskOf, serializeDescriptor } from "./snapshot.js";

const schemas = { out: z.object({ i: z.number() }), total: z.object({ sum: z.number() }) };
const registry = new SchemaRegistry(schemas, "sqlite");
const extract = (nodes: HostNode[], previous: Extracted | null = null) =>
  extractPlan(nodes, { registry, iterations: {}, seedIteration: () => 0, cacheByDefault: false, previous });
const none = () => false;

/** A session's view of the last render: its tree, plan and frame. */
interface Rendered {
  nodes: HostNode[];
  plan: Extracted;
  frame: FrameValue;
}

function first(tree: FlowNode): Rendered {
  const nodes = renderNodes(tree, undefined);
  const plan = extract(nodes);
  return { nodes, plan, frame: { xml: frameXmlOf(nodes, null), tasks: plan.tasks.map(frameTaskOf) } };
}

/** Renders `tree` again over `last`, keeping its plan; null when patchPlan refuses. */
function again(last: Rendered, tree: FlowNode, held: (t: unknown) => boolean = none): Rendered | null {
  const nodes = renderNodes(tree, undefined, undefined, last.nodes);
  const patch = patchPlan(last.plan, last.nodes, nodes, registry, held);
  if (!patch) return null;
  last.plan.tasks.forEach((task, i) => {
    adoptDescriptor(task, patch.els[i]!, patch.descs[i]!);
    last.plan.descriptors[i] = patch.descs[i]!;
  });
  return { nodes, plan: last.plan, frame: { xml: frameXmlOf(nodes, last.frame.xml), tasks: last.plan.tasks.map(frameTaskOf) } };
}

/** What a fresh render and extraction of `tree` gives. */
function fresh(tree: FlowNode) {
  const nodes = renderNodes(tree, undefined);
  const plan = extract(nodes);
  const xml = nodes.length === 1 && nodes[0]!.kind === "element" ? toXml(nodes[0]!) : { kind: "element" as const, tag: "flow:fragment", props: {}, children: nodes.map(toXml) };
  return { nodes, plan, frame: { xml, tasks: plan.descriptors.map(serializeDescriptor) } };
}

/**
 * `next` equals a fresh extraction of `tree`, and its delta from `last` (the live previous
 * value, as the session's encoder holds it) is the fresh one's.
 */
function expectFresh(last: FrameValue, next: Rendered, tree: FlowNode): void {
  const ref = fresh(tree);
  expect(JSON.stringify(next.frame)).toBe(JSON.stringify(ref.frame));
  expect(diffJson(last, next.frame)).toEqual(diffJson(last, ref.frame));
  expect(next.plan.descriptors.map((d) => ({ ...d, computeFn: undefined, outputSchema: undefined }))).toEqual(ref.plan.descriptors.map((d) => ({ ...d, computeFn: undefined, outputSchema: undefined })));
  // Each task runs the function of the latest render, not the one it was first described with.
  const children = (n: HostNode): unknown[] => (n.kind === "element" ? (n.tag === "flow:task" ? [typeof n.rawProps.children === "function" ? n.rawProps.children : undefined] : n.children.flatMap(children)) : []);
  expect(next.plan.tasks.map((t) => t.desc.computeFn)).toEqual(next.nodes.flatMap(children));
}

describe("renders that keep the plan", () => {
  const tree = (done: number) => (
    <Workflow name="steps">
      <Sequence>
        {`${done} done`}
        {Array.from({ length: 5 }, (_, i) => (
          <Task key={i} id={`t${i}`} output={schemas.out} label={i < done ? "done" : "todo"} retries={2}>
            {() => ({ i: i + done })}
          </Task>
        ))}
      </Sequence>
      <Parallel maxConcurrency={2}>
        <Task id="a" output={schemas.total} meta={{ done }}>{{ sum: 1 }}</Task>
        <Task id="b" output={schemas.total} timeoutMs={1000}>{() => ({ sum: done })}</Task>
      </Parallel>
    </Workflow>
  );

  it("gives the descriptors, frame and delta of a fresh extraction when labels, text and child functions change", () => {
    let last = first(tree(0));
    for (let done = 1; done <= 5; done++) {
      const next = again(last, tree(done));
      expect(next).not.toBeNull();
      expectFresh(last.frame, next!, tree(done));
      last = next!;
    }
  });

  it("keeps the descriptor and frame objects of tasks whose props did not change, and gives a held descriptor a copy", () => {
    const last = first(tree(1));
    const before = last.plan.tasks.map((t) => ({ desc: t.desc, fn: t.desc.computeFn, frame: t.frameTask }));
    const next = again(last, tree(1), (t) => t === last.plan.tasks[0])!;
    expect(next.plan.tasks[3]!.desc).toBe(before[3]!.desc);
    expect(next.frame.tasks[3]).toBe(before[3]!.frame);
    expect(next.frame.xml).toBe(last.frame.xml);
    // t0's running attempt keeps the descriptor (and function) it started with.
    expect(next.plan.tasks[0]!.desc).not.toBe(before[0]!.desc);
    expect(before[0]!.desc.computeFn).toBe(before[0]!.fn);
    expect(next.plan.tasks[0]!.desc.computeFn).not.toBe(before[0]!.fn);
  });

  it("describes anew tasks whose object props changed in place, and refuses when that changes their dependencies", () => {
    const meta = { seen: 0 };
    const policy = { backoff: "fixed" as const, initialDelayMs: 0 };
    const deps: string[] = [];
    const hoisted = () => (
      <Workflow name="hoisted">
        <Task id="x" output={schemas.out} meta={meta} retryPolicy={policy}>{() => ({ i: 1 })}</Task>
        <Task id="y" output={schemas.out} dependsOn={deps}>{() => ({ i: 2 })}</Task>
      </Workflow>
    );
    const last = first(hoisted());
    meta.seen = 1;
    policy.initialDelayMs = 50;
    const next = again(last, hoisted())!;
    expectFresh(last.frame, next, hoisted());
    expect(JSON.stringify(next.frame)).toContain('"initialDelayMs":50');
    deps.push("x");
    expect(again(next, hoisted())).toBeNull();
  });

  it("refuses a tree with another structure, other node ids or other container props", () => {
    const shaped = (opts: { extra?: boolean; id?: string; max?: number }) => (
      <Workflow name="shaped">
        <Parallel maxConcurrency={opts.max ?? 2}>
          <Task id={opts.id ?? "p"} output={schemas.out}>{() => ({ i: 1 })}</Task>
          {opts.extra ? <Task id="q" output={schemas.out}>{() => ({ i: 2 })}</Task> : null}
        </Parallel>
      </Workflow>
    );
    expect(again(first(shaped({})), shaped({}))).not.toBeNull();
    expect(again(first(shaped({})), shaped({ extra: true }))).toBeNull();
    expect(again(first(shaped({})), shaped({ id: "other" }))).toBeNull();
    expect(again(first(shaped({})), shaped({ max: 3 }))).toBeNull();
  });

  it("carries descriptors into a new plan when the tree grew, as a fresh extraction describes them", () => {
    const growing = (n: number) => (
      <Workflow name="growing">
        <Sequence>{Array.from({ length: n }, (_, i) => <Task key={i} id={`g${i}`} output={schemas.out} label="g">{() => ({ i: i * n })}</Task>)}</Sequence>
      </Workflow>
    );
    let last = first(growing(2));
    for (let n = 3; n <= 5; n++) {
      const nodes = renderNodes(growing(n), undefined, undefined, last.nodes);
      expect(patchPlan(last.plan, last.nodes, nodes, registry, none)).toBeNull();
      const plan = extract(nodes, last.plan);
      const next = { nodes, plan, frame: { xml: frameXmlOf(nodes, last.frame.xml), tasks: plan.tasks.map(frameTaskOf) } };
      expectFresh(last.frame, next, growing(n));
      last = next;
    }
  });
});
