/**
 * @module core/engine/output-index
 * The run's output rows in memory, indexed by table and node. The database stays the source of
 * truth (rows are loaded from it on resume); this index lets renders read outputs without
 * queries, and records which tables a render read so that the engine re-renders only when a
 * completion could change the tree.
 */
import type { RowKey } from "../components/types.js";

export type OutputRow = Record<string, unknown> & RowKey;

const keyOf = (nodeId: string, iteration: number) => `${nodeId}\u0000${iteration}`;

interface TableRows {
  rows: Map<string, OutputRow>;
  list: OutputRow[] | null;
}

export class OutputIndex {
  private readonly tables = new Map<string, TableRows>();
  /** Order in which rows were written (the run output is the latest row of its table). */
  private readonly written = new Map<string, number>();
  private writeSeq = 0;
  private reads: Set<string> | null = null;

  private table(key: string): TableRows {
    let t = this.tables.get(key);
    if (!t) this.tables.set(key, (t = { rows: new Map(), list: null }));
    return t;
  }

  private touch(tableKey: string): void {
    this.reads?.add(tableKey);
  }

  /** Starts recording table reads (one render). */
  beginTracking(): void {
    this.reads = new Set();
  }

  /** Stops recording; returns the tables read since `beginTracking`. */
  endTracking(): Set<string> {
    const r = this.reads ?? new Set<string>();
    this.reads = null;
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
    this.touch(tableKey);
    return this.tables.get(tableKey)?.rows.get(keyOf(nodeId, iteration));
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
