/**
 * @module core/memory/namespace
 * `MemoryNamespace` and its string form `kind:id` (SPEC.md "Memory"). The id is
 * percent-encoded for exactly two characters, `%` and `:`, so the first `:` always separates
 * kind from id and every id round-trips. A string without a known kind prefix is a `global`
 * namespace whose id is the whole string. See docs/memory.md.
 */
import { FlowError } from "../errors.js";

/**
 * The kinds of memory namespace.
 * @example
 * NAMESPACE_KINDS.includes("user"); // true
 */
export const NAMESPACE_KINDS = ["workflow", "agent", "user", "global"] as const;

/** One of `workflow`, `agent`, `user`, `global`. */
export type MemoryNamespaceKind = (typeof NAMESPACE_KINDS)[number];

/** Where memory lives: a kind and an id (SPEC.md `MemoryNamespace`). */
export interface MemoryNamespace {
  kind: MemoryNamespaceKind;
  id: string;
}

/** A namespace as callers may pass it: structured, or already serialized. */
export type NamespaceInput = MemoryNamespace | string;

/**
 * True for one of the four namespace kinds.
 * @example
 * isNamespaceKind("agent"); // true
 */
export function isNamespaceKind(value: unknown): value is MemoryNamespaceKind {
  return typeof value === "string" && (NAMESPACE_KINDS as readonly string[]).includes(value);
}

/**
 * The string form `kind:id`, with `%` and `:` in the id percent-encoded.
 * @example
 * serializeNamespace({ kind: "user", id: "a:b" }); // "user:a%3Ab"
 */
export function serializeNamespace(ns: MemoryNamespace): string {
  if (!isNamespaceKind(ns?.kind) || typeof ns.id !== "string") {
    throw new FlowError("INVALID_ARGUMENT", `A memory namespace needs a kind (${NAMESPACE_KINDS.join(", ")}) and a string id; got ${JSON.stringify(ns)}.`);
  }
  return `${ns.kind}:${ns.id.replace(/%/g, "%25").replace(/:/g, "%3A")}`;
}

/**
 * Parses `kind:id`. Strings without a known kind prefix parse as kind `global` with the whole
 * string as id. Escapes other than `%25` and `%3A` (either case) are left as they are.
 * @example
 * parseNamespace("user:a%3Ab"); // { kind: "user", id: "a:b" }
 * parseNamespace("team-notes"); // { kind: "global", id: "team-notes" }
 */
export function parseNamespace(text: string): MemoryNamespace {
  const colon = text.indexOf(":");
  const kind = colon < 0 ? "" : text.slice(0, colon);
  if (!isNamespaceKind(kind)) return { kind: "global", id: text };
  return { kind, id: text.slice(colon + 1).replace(/%(25|3A)/gi, (m) => (m === "%25" ? "%" : ":")) };
}

/**
 * The canonical string of a namespace given either way (a string is parsed, then re-serialized).
 * @example
 * namespaceKey("plain"); // "global:plain"
 */
export function namespaceKey(ns: NamespaceInput): string {
  return serializeNamespace(typeof ns === "string" ? parseNamespace(ns) : ns);
}
