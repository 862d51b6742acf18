/**
 * @module core/engine/travel/refs
 * Where snapshots live: one ref per attempt boundary under `refs/flow/runs/<run>/`, so the
 * snapshots of a run are listed and garbage-collected together. Run and node ids are encoded
 * into single ref components (`%xx` for anything outside `[A-Za-z0-9_-]`), which keeps any id
 * a valid ref name and keeps `a` and `a/b` from colliding.
 */

const SAFE = /^[A-Za-z0-9_-]$/;
const encode = (part: string): string =>
  Array.from(new TextEncoder().encode(part), (b) => (SAFE.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`)).join("");

/**
 * The ref prefix of every snapshot of a run (ends with `/`).
 * @example
 * runRefPrefix("r1") // "refs/flow/runs/r1/"
 */
export function runRefPrefix(runId: string): string {
  return `refs/flow/runs/${encode(runId)}/`;
}

/**
 * The ref of the tree an attempt started from (`start`) or ended with (`end`).
 * @example
 * attemptRef("r1", "review", 0, 2, "end") // "refs/flow/runs/r1/review/0/2/end"
 */
export function attemptRef(runId: string, nodeId: string, iteration: number, attempt: number, edge: "start" | "end"): string {
  return `${runRefPrefix(runId)}${encode(nodeId)}/${iteration}/${attempt}/${edge}`;
}

/**
 * The ref keeping the working tree as it was right before a time travel (so a rewind can be undone).
 * @example
 * intentRef("r1", "tt-1") // "refs/flow/runs/r1/time.travel/tt-1"
 */
export function intentRef(runId: string, intentId: string): string {
  return `${runRefPrefix(runId)}time.travel/${encode(intentId)}`;
}

/**
 * The attempt edge a snapshot ref names, or null for other refs (such as a time travel's
 * `before` snapshot).
 * @example
 * parseAttemptRef("refs/flow/runs/r1/review/0/2/end") // { runId: "r1", nodeId: "review", iteration: 0, attempt: 2, edge: "end" }
 */
export function parseAttemptRef(ref: string): { runId: string; nodeId: string; iteration: number; attempt: number; edge: "start" | "end" } | null {
  const m = /^refs\/flow\/runs\/([^/]+)\/([^/.]+)\/(\d+)\/(\d+)\/(start|end)$/.exec(ref);
  if (!m) return null;
  const decode = (part: string) => new TextDecoder().decode(Uint8Array.from(part.match(/%[0-9a-f]{2}|[^%]/g)!.map((t) => (t.length === 3 ? parseInt(t.slice(1), 16) : t.charCodeAt(0)))));
  return { runId: decode(m[1]!), nodeId: decode(m[2]!), iteration: Number(m[3]), attempt: Number(m[4]), edge: m[5] as "start" | "end" };
}
