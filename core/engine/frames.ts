/**
 * @module core/engine/frames
 * Frames are stored only when the rendered tree changes, as deltas against the previous frame,
 * with a keyframe whenever the deltas written since the last keyframe outweigh it. Total size
 * is then at most about three times the size of the changes, whatever the size of the tree
 * (DESIGN.md performance rules), and rebuilding any frame reads at most about twice a
 * keyframe's worth of data.
 *
 * A delta is a list of operations on the JSON value of the previous frame:
 * `{ p: path, v: value }` sets, `{ p: path, d: 1 }` deletes a key, `{ p: path, n: length }`
 * truncates an array.
 */
import { FlowError } from "../errors.js";

type Path = (string | number)[];
export type DeltaOp = { p: Path; v: unknown } | { p: Path; d: 1 } | { p: Path; n: number };

/** Operations turning `prev` into `next`. */
export function diffJson(prev: unknown, next: unknown): DeltaOp[] {
  const ops: DeltaOp[] = [];
  walk(prev, next, [], ops);
  return ops;
}

// `path` is one stack pushed and popped along the walk (copied only when an op is emitted):
// the walk visits every node of two large trees on each frame, so it must not allocate.
function walk(a: unknown, b: unknown, path: Path, ops: DeltaOp[]): void {
  if (a === b) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) {
      path.push(i);
      walk(a[i], b[i], path, ops);
      path.pop();
    }
    if (b.length < a.length) ops.push({ p: path.slice(), n: b.length });
    for (let i = common; i < b.length; i++) ops.push({ p: [...path, i], v: b[i] });
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k in b) {
      path.push(k);
      walk(a[k], b[k], path, ops);
      path.pop();
    }
    for (const k in a) if (!(k in b)) ops.push({ p: [...path, k], d: 1 });
    return;
  }
  ops.push({ p: path.slice(), v: b });
}

/** Applies a delta to a copy of `base`. */
export function applyDelta(base: unknown, ops: readonly DeltaOp[]): unknown {
  let root = structuredClone(base);
  for (const op of ops) {
    if (op.p.length === 0) {
      if ("v" in op) root = structuredClone(op.v);
      else if ("n" in op && Array.isArray(root)) root.length = op.n;
      continue;
    }
    const parent = op.p.slice(0, -1).reduce<any>((node, k) => node?.[k], root);
    const last = op.p[op.p.length - 1]!;
    if (parent === undefined || parent === null) throw new FlowError("INTERNAL", `Frame delta path ${op.p.join(".")} does not exist.`);
    if ("v" in op) parent[last] = structuredClone(op.v);
    else if ("d" in op) delete parent[last];
    else (parent[last] as unknown[]).length = op.n;
  }
  return root;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The encoding of one frame: a keyframe (the whole value) or a delta (JSON text of ops). */
export interface EncodedFrame {
  kind: "key" | "delta";
  json: string;
}

/** Decides keyframe or delta for each new frame and remembers the previous one. */
export class FrameEncoder {
  private prev: unknown;
  private hasPrev: boolean;

  constructor(
    prev?: unknown,
    private keyBytes = 0,
    private deltaBytesSinceKey = 0,
  ) {
    this.prev = prev;
    this.hasPrev = prev !== undefined;
  }

  /** The encoding of `value`, or null when it equals the previous frame. */
  encode(value: unknown): EncodedFrame | null {
    if (!this.hasPrev) return this.key(value);
    return this.encodeDelta(diffJson(this.prev, value), value);
  }

  /**
   * The encoding of `value` when the caller already knows the operations from the previous
   * frame (`diffJson(previous, value)`, e.g. computed on the changed subtrees only): the same
   * result as `encode(value)` without walking the whole value.
   */
  encodeDelta(ops: DeltaOp[], value: unknown): EncodedFrame | null {
    if (!this.hasPrev) return this.key(value);
    if (ops.length === 0) return null;
    const json = JSON.stringify(ops);
    if (this.deltaBytesSinceKey + json.length > this.keyBytes) return this.key(value);
    this.deltaBytesSinceKey += json.length;
    this.prev = value;
    return { kind: "delta", json };
  }

  private key(value: unknown): EncodedFrame {
    const json = JSON.stringify(value);
    this.prev = value;
    this.hasPrev = true;
    this.keyBytes = json.length;
    this.deltaBytesSinceKey = 0;
    return { kind: "key", json };
  }
}

/** Rebuilds the latest frame from the rows since its keyframe, and an encoder that continues after it. */
export function replayFrames(rows: ReadonlyArray<{ kind: "key" | "delta"; data_json: string }>): { value: unknown; encoder: FrameEncoder } {
  let value: unknown = null;
  let keyBytes = 0;
  let deltaBytes = 0;
  for (const r of rows) {
    if (r.kind === "key") {
      value = JSON.parse(r.data_json);
      keyBytes = r.data_json.length;
      deltaBytes = 0;
    } else {
      value = applyDelta(value, JSON.parse(r.data_json) as DeltaOp[]);
      deltaBytes += r.data_json.length;
    }
  }
  return { value, encoder: rows.length ? new FrameEncoder(value, keyBytes, deltaBytes) : new FrameEncoder() };
}
