/**
 * @module core/engine/frames
 * Frames are stored only when the rendered tree changes, as a keyframe every
 * `KEYFRAME_EVERY` frames and as deltas against the previous frame in between, so their total
 * size grows with the number of changes, not with tasks squared (DESIGN.md performance rules).
 *
 * A delta is a list of operations on the JSON value of the previous frame:
 * `{ p: path, v: value }` sets, `{ p: path, d: 1 }` deletes a key, `{ p: path, n: length }`
 * truncates an array.
 */
import { FlowError } from "../errors.js";

export const KEYFRAME_EVERY = 50;

type Path = (string | number)[];
export type DeltaOp = { p: Path; v: unknown } | { p: Path; d: 1 } | { p: Path; n: number };

/** Operations turning `prev` into `next`. */
export function diffJson(prev: unknown, next: unknown): DeltaOp[] {
  const ops: DeltaOp[] = [];
  walk(prev, next, [], ops);
  return ops;
}

function walk(a: unknown, b: unknown, path: Path, ops: DeltaOp[]): void {
  if (a === b) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) walk(a[i], b[i], [...path, i], ops);
    if (b.length < a.length) ops.push({ p: path, n: b.length });
    for (let i = common; i < b.length; i++) ops.push({ p: [...path, i], v: b[i] });
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(b)) walk(a[k], b[k], [...path, k], ops);
    for (const k of Object.keys(a)) if (!(k in b)) ops.push({ p: [...path, k], d: 1 });
    return;
  }
  ops.push({ p: path, v: b });
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
