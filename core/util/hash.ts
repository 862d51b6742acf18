/**
 * @module core/util/hash
 * Synchronous SHA-256 and a stable JSON serialization, usable in every runtime (no node:crypto).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** SHA-256 of a UTF-8 string, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * JSON with object keys sorted at every depth, so equal values serialize equally whatever
 * their key order. `undefined` fields are dropped; functions serialize as their source.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(normalize(value, new WeakSet()));
}

function normalize(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === "function") return `fn:${value.toString()}`;
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : normalize(v, seen)));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = normalize(v, seen);
  }
  return out;
}
