/**
 * @module node/server/auth/scope-list
 * Scopes as they arrive in claims and headers: an array, or one string separated by spaces
 * and/or commas (`"run:read run:write"`, `"run:read,run:write"`).
 */

/** The scopes of a claim or header value; undefined when it holds none of either shape. */
export function parseScopeList(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string" && s.length > 0);
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return undefined;
}
