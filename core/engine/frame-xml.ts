/**
 * @module core/engine/frame-xml
 * The XML of a frame (docs/engine.md, "Frames"), built against the previous frame's XML so
 * that every subtree equal to the one at the same place is the previous object itself. A
 * full render after a completion then costs one comparison per node and no new objects where
 * nothing changed, and `diffJson` (frames.ts), which stops at identical objects, walks only
 * the paths that did change: the same operations as on a fresh copy, in the same order.
 */
import type { HostNode, XmlNode } from "../jsx/index.js";

/**
 * The frame XML of a render's top-level host nodes: the one element, or a `flow:fragment`
 * around several (null for none), reusing what `previous` already holds.
 * @example
 * frame.xml = frameXmlOf(nodes, frame.xml); // then diffJson(old, frame) walks the changes only
 */
export function frameXmlOf(nodes: readonly HostNode[], previous: XmlNode | null | undefined): XmlNode | null {
  if (nodes.length === 1 && nodes[0]!.kind === "element") return xmlReusing(nodes[0]!, previous);
  if (nodes.length === 0) return null;
  const prev = previous?.kind === "element" && previous.tag === FRAGMENT ? previous : undefined;
  const children = childrenReusing(nodes, prev?.children);
  if (prev && children === prev.children) return prev;
  return { kind: "element", tag: FRAGMENT, props: {}, children };
}

const FRAGMENT = "flow:fragment";

/** `toXml(node)`, or `prev` when that is deep-equal to it (props in the same key order). */
function xmlReusing(node: HostNode, prev: XmlNode | null | undefined): XmlNode {
  if (node.kind === "text") return prev?.kind === "text" && prev.text === node.text ? prev : { kind: "text", text: node.text };
  const same = prev?.kind === "element" && prev.tag === node.tag ? prev : undefined;
  const props = same && sameProps(same.props, node.props) ? same.props : node.props;
  const children = childrenReusing(node.children, same?.children);
  if (same && props === same.props && children === same.children) return same;
  return { kind: "element", tag: node.tag, props, children };
}

/** The XML of `nodes`: `prev` itself when every child is reused and the lengths match. */
function childrenReusing(nodes: readonly HostNode[], prev: readonly XmlNode[] | undefined): XmlNode[] {
  let out: XmlNode[] | undefined;
  for (let i = 0; i < nodes.length; i++) {
    const before = prev?.[i];
    const x = xmlReusing(nodes[i]!, before);
    // Copy only from the first child that differs: unchanged lists allocate nothing.
    if (!out && x !== before) out = prev ? prev.slice(0, i) : [];
    out?.push(x);
  }
  if (out) return out;
  if (prev && prev.length === nodes.length) return prev as XmlNode[];
  return prev ? prev.slice(0, nodes.length) : [];
}

// Keys of the props being compared, reused between calls (the comparison must not allocate).
const scratch: string[] = [];

/** Same keys in the same order with the same values (what `JSON.stringify` would show alike). */
function sameProps(a: Record<string, string>, b: Record<string, string>): boolean {
  if (a === b) return true;
  let n = 0;
  for (const k in a) scratch[n++] = k;
  let i = 0;
  for (const k in b) {
    if (i >= n || scratch[i] !== k || a[k] !== b[k]) return false;
    i++;
  }
  return i === n;
}
