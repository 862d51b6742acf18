/**
 * @module core/engine/output-index
 * The run's output rows in memory, indexed by table and node. The database stays the source of
 * truth (rows are loaded from it on resume); this index lets renders read outputs without
 * queries, and records which tables a render read so that the engine re-renders only when a
 * completion could change the tree.
 */
import type { RowKey } from "../components/index.js";

export type OutputRow = Record<string, unknown> & RowKey;

const keyOf = (nodeId: string, iteration: number) => `${nodeId}\u0000${iteration}`;

interface TableRows {
  rows: Map<string, OutputRow>;
  list: OutputRow[] | null;
}

const NO_READS: ReadonlySet<string> = new Set();

export class OutputIndex {
  private readonly tables = new Map<string, TableRows>();
  /** Order in which rows were written (the run output is the latest row of its table). */
  private readonly written = new Map<string, number>();
  private writeSeq = 0;
  private reads: Set<string> | null = null;
  /** Row-level reads of the components being rendered, innermost last (render-instances.ts). */
  private readonly scopes: (Set<string> | null)[] = [];

  private table(key: string): TableRows {
    let t = this.tables.get(key);
    if (!t) this.tables.set(key, (t = { rows: new Map(), list: null }));
    return t;
  }

  private touch(tableKey: string, rowKey?: string): void {
    this.reads?.add(tableKey);
    const depth = this.scopes.length;
    if (depth === 0) return;
    // Most components read nothing: a scope's set is made on its first read.
    const scope = (this.scopes[depth - 1] ??= new Set());
    scope.add(rowKey === undefined ? tableKey : `${tableKey}\u0000${rowKey}`);
  }

  /**
   * Starts recording row-level reads for one component of a render: `get` records the row it
   * asked for, every other accessor the whole table. Scopes nest; a read counts for the
   * innermost one only.
   */
  beginScope(): void {
    this.scopes.push(null);
  }

  /** Ends the innermost scope; returns its reads (keys matched by `readKeysOf`). */
  endScope(): ReadonlySet<string> {
    return this.scopes.pop() ?? NO_READS;
  }

  /** Starts recording table reads (one render). */
  beginTracking(): void {
    this.reads = new Set();
  }

  /** Stops recording; returns the tables read since `beginTracking`. */
  endTracking(): Set<string> {
    const r = this.reads ?? new Set<string>();
    this.reads = null;
    // Scopes left open by a component that threw belong to a render that is over.
    this.scopes.length = 0;
    return r;
  }

  set(tableKey: string, row: OutputRow): void {
    const t = this.table(tableKey);
    const k = keyOf(row.nodeId, row.iteration);
    t.rows.delete(k);
    t.rows.set(k, row);
    t.list = null;
    this.written.set(`${tableKey}\u0000${k}`, ++this.writeSeq);
  }

  delete(tableKey: string, nodeId: string, iteration: number): void {
    const t = this.tables.get(tableKey);
    if (t?.rows.delete(keyOf(nodeId, iteration))) t.list = null;
  }

  all(tableKey: string): OutputRow[] {
    this.touch(tableKey);
    const t = this.tables.get(tableKey);
    if (!t) return [];
    return (t.list ??= [...t.rows.values()]);
  }

  get(tableKey: string, nodeId: string, iteration: number): OutputRow | undefined {
    const k = keyOf(nodeId, iteration);
    this.touch(tableKey, k);
    return this.tables.get(tableKey)?.rows.get(k);
  }

  latest(tableKey: string, nodeId: string): OutputRow | undefined {
    let best: OutputRow | undefined;
    for (const row of this.all(tableKey)) if (row.nodeId === nodeId && (!best || row.iteration > best.iteration)) best = row;
    return best;
  }

  iterationCount(tableKey: string, nodeId: string): number {
    let n = 0;
    for (const row of this.all(tableKey)) if (row.nodeId === nodeId) n++;
    return n;
  }

  /** The most recently written row of a table (not tracked: used after the run, not in renders). */
  lastWritten(tableKey: string): OutputRow | undefined {
    const t = this.tables.get(tableKey);
    let best: OutputRow | undefined;
    let bestSeq = -1;
    for (const [k, row] of t?.rows ?? []) {
      const s = this.written.get(`${tableKey}\u0000${k}`) ?? -1;
      if (s > bestSeq) [best, bestSeq] = [row, s];
    }
    return best;
  }
}

/**
 * The scope keys a written row is read through: its own row, and its whole table.
 * @example
 * const dirty = readKeysOf("out", "t3", 0).some((k) => reads.has(k));
 */
export function readKeysOf(tableKey: string, nodeId: string, iteration: number): [string, string] {
  return [tableKey, `${tableKey}\u0000${keyOf(nodeId, iteration)}`];
}
