/**
 * @module node/server/webhooks/json-path
 * The JSON paths of webhook configs (`runIdPath`, `correlationIdPath`, `payloadPath`,
 * `inputPath`): dot-separated keys with optional `[n]` indexes and an optional leading `$.`,
 * e.g. `pull_request.head.sha`, `$.commits[0].id`.
 */
import { FlowError } from "../../../core/errors.js";

/**
 * The value at `path` in `value`, or undefined when any step is missing.
 * @example
 * valueAtPath({ a: { b: [{ c: 1 }] } }, "a.b[0].c"); // 1
 */
export function valueAtPath(value: unknown, path: string): unknown {
  const steps = parsePath(path);
  let at: unknown = value;
  for (const step of steps) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

function parsePath(path: string): Array<string | number> {
  const body = path.replace(/^\$\.?/, "");
  if (body === "") return [];
  const steps: Array<string | number> = [];
  for (const part of body.split(".")) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) throw new FlowError("INVALID_ARGUMENT", `"${path}" is not a JSON path of the form a.b[0].c.`, { path });
    if (m[1]) steps.push(m[1]);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) steps.push(Number(idx[1]));
  }
  return steps;
}
