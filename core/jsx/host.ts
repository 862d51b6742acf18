/**
 * @module core/jsx/host
 * The host tree: what a render produces and what frames store. `props` are strings for display
 * (SPEC.md `HostNodeJson`); `rawProps` keep the values the engine needs (functions, schemas,
 * agents) and are never persisted.
 */

/** A host element (`flow:task`, `flow:sequence`, ...). */
export interface HostElement {
  kind: "element";
  tag: string;
  props: Record<string, string>;
  rawProps: Record<string, unknown>;
  children: HostNode[];
}

/** A text node. */
export interface HostText {
  kind: "text";
  text: string;
}

export type HostNode = HostElement | HostText;

/** SPEC.md `HostNodeJson`: the host tree of an external (non-JSX) workflow build function. */
export type HostNodeJson =
  | { kind: "element"; tag: string; props: Record<string, string>; rawProps?: Record<string, unknown>; children: HostNodeJson[] }
  | { kind: "text"; text: string };

/** The persisted XML node of a frame (SPEC.md "Graph snapshot"): a host node without rawProps. */
export type XmlNode =
  | { kind: "element"; tag: string; props: Record<string, string>; children: XmlNode[] }
  | { kind: "text"; text: string };

/** Strips rawProps: the persisted, JSON-safe form of a host tree. */
export function toXml(node: HostNode): XmlNode {
  if (node.kind === "text") return { kind: "text", text: node.text };
  return { kind: "element", tag: node.tag, props: node.props, children: node.children.map(toXml) };
}

/** Builds a host tree from its JSON form (external workflows). */
export function fromJson(node: HostNodeJson): HostNode {
  if (node.kind === "text") return { kind: "text", text: node.text };
  return {
    kind: "element",
    tag: node.tag,
    props: { ...node.props },
    rawProps: { ...node.props, ...node.rawProps },
    children: node.children.map(fromJson),
  };
}

/** Plain text of a subtree (a prompt written as JSX children). Elements add line breaks. */
export function textOf(nodes: readonly HostNode[]): string {
  let out = "";
  for (const n of nodes) {
    if (n.kind === "text") out += n.text;
    else {
      const inner = textOf(n.children);
      out += out && !out.endsWith("\n") && inner ? `\n${inner}` : inner;
    }
  }
  return out;
}

/** Display form of a prop value: strings as is, JSON data as JSON, anything else left out. */
export function displayProp(value: unknown): string | undefined {
  if (value === null || value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (!isPlainData(value, 0)) return undefined;
  return JSON.stringify(value);
}

function isPlainData(value: unknown, depth: number): boolean {
  if (depth > 8) return false;
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every((v) => isPlainData(v, depth + 1));
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as object).every((v) => v === undefined || isPlainData(v, depth + 1));
}
