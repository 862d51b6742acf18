/**
 * @module core/engine/render-instances
 * What a render remembers so that the next one can be incremental (docs/engine.md,
 * "Incremental renders"): each function component's place in the host tree and the rows it
 * read (row by row through `ctx.output`/`outputMaybe`/`resolveRow` with an iteration, whole
 * tables through the other accessors), and the rows the build function itself read. After a
 * completion, only the components that read a written row need to run again.
 */
import type { FlowElement, HostNode, RenderRecorder } from "../jsx/index.js";
import { type OutputIndex, readKeysOf } from "./output-index.js";
import type { RenderView } from "../jsx/index.js";

/** One function component of the last render. */
export interface RenderInstance {
  element: FlowElement;
  /** The host array its output went into, and where: `out[start .. start + count)`. */
  out: HostNode[];
  start: number;
  count: number;
  /** Indices from the top level to the host element that owns `out` ([] for the top level). */
  path: number[];
  /** Scope keys of the rows and tables it read (output-index.ts). */
  reads: ReadonlySet<string>;
  /** Function components rendered inside it that read something (and so are kept). */
  nested: number;
}

/** Records the instances of one render, with their reads (a scope of the OutputIndex each). */
export class InstanceRecorder implements RenderRecorder {
  readonly instances: RenderInstance[] = [];
  private readonly nestedCounts: number[] = [];

  constructor(private readonly index: OutputIndex) {}

  enter(): void {
    this.index.beginScope();
    this.nestedCounts.push(0);
  }

  exit(element: FlowElement, out: HostNode[], start: number, path: readonly number[]): void {
    const reads = this.index.endScope();
    const nested = this.nestedCounts.pop() ?? 0;
    // A component that read nothing never renders differently on its own: it is not kept
    // (and does not count as nested in the one around it, which renders it again anyway).
    const kept = reads.size > 0;
    const depth = this.nestedCounts.length;
    if (depth > 0) this.nestedCounts[depth - 1]! += (kept ? 1 : 0) + nested;
    if (kept) this.instances.push({ element, out, start, count: out.length - start, path: path.slice(), reads, nested });
  }
}

/** A row stored since the last render. */
export interface WrittenRow {
  table: string;
  nodeId: string;
  iteration: number;
}

/** The instances of the last render, indexed by what they read, and the tables read in all. */
export class RenderInstances {
  private readonly byRead = new Map<string, Set<RenderInstance>>();
  /** How many readers (the build, each instance) read each table: its keys are the render's read tables. */
  private readonly tableReaders = new Map<string, number>();

  constructor(
    private readonly rootReads: ReadonlySet<string>,
    instances: readonly RenderInstance[],
  ) {
    this.count(rootReads, 1);
    for (const instance of instances) this.add(instance);
  }

  /** Whether the build function read any of `rows`. */
  rootRead(rows: readonly WrittenRow[]): boolean {
    return rows.some((r) => readKeysOf(r.table, r.nodeId, r.iteration).some((k) => this.rootReads.has(k)));
  }

  /** The instances that read any of `rows`, in no particular order. */
  readersOf(rows: readonly WrittenRow[]): Set<RenderInstance> {
    const out = new Set<RenderInstance>();
    for (const r of rows) for (const k of readKeysOf(r.table, r.nodeId, r.iteration)) for (const i of this.byRead.get(k) ?? []) out.add(i);
    return out;
  }

  /** `next` took `previous`'s place (a re-render of that component alone). */
  replace(previous: RenderInstance, next: RenderInstance): void {
    this.remove(previous);
    this.add(next);
  }

  /** The tables read by the whole tree, as a full render would track them. */
  tables(): Set<string> {
    return new Set(this.tableReaders.keys());
  }

  private add(instance: RenderInstance): void {
    for (const k of instance.reads) {
      let set = this.byRead.get(k);
      if (!set) this.byRead.set(k, (set = new Set()));
      set.add(instance);
    }
    this.count(instance.reads, 1);
  }

  private remove(instance: RenderInstance): void {
    for (const k of instance.reads) {
      const set = this.byRead.get(k);
      set?.delete(instance);
      if (set?.size === 0) this.byRead.delete(k);
    }
    this.count(instance.reads, -1);
  }

  private count(reads: ReadonlySet<string>, by: 1 | -1): void {
    const tables = new Set<string>();
    for (const k of reads) tables.add(tableOfReadKey(k));
    for (const t of tables) {
      const n = (this.tableReaders.get(t) ?? 0) + by;
      if (n > 0) this.tableReaders.set(t, n);
      else this.tableReaders.delete(t);
    }
  }
}

function tableOfReadKey(key: string): string {
  const cut = key.indexOf("\u0000");
  return cut < 0 ? key : key.slice(0, cut);
}

/**
 * `view`, calling `onUse` whenever a component looks at it: what it reads there (wait data,
 * scope failures, node states) is not tracked row by row, so such a render is never redone
 * incrementally.
 * @example
 * attachRenderView(ctx, watchedRenderView(view, () => (viewUsed = true)));
 */
export function watchedRenderView(view: RenderView, onUse: () => void): RenderView {
  return new Proxy(view, {
    get(target, key, receiver) {
      onUse();
      return Reflect.get(target, key, receiver);
    },
  });
}
