/**
 * @module core/api/body
 * Request bodies under a byte limit. `Content-Length` is checked before routing; a body
 * without it is counted while it streams and the read stops at the limit (the rest is never
 * read). Malformed JSON answers INVALID_ARGUMENT, and so does a body that is not the JSON
 * object a route takes, or an identifier longer than `MAX_ID_LENGTH` (docs/hosting.md "Limits").
 */
import { FlowError } from "../errors.js";

/**
 * Throws PAYLOAD_TOO_LARGE when the request declares a body over `maxBytes`.
 * @example
 * assertDeclaredSize(req, 1_048_576);
 */
export function assertDeclaredSize(req: Request, maxBytes: number): void {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes, Number(declared));
}

function tooLarge(maxBytes: number, size?: number): FlowError {
  return new FlowError("PAYLOAD_TOO_LARGE", `The request body is larger than this server's limit of ${maxBytes} bytes${size === undefined ? "" : ` (${size} declared)`}; send less, or raise maxBodyBytes.`, {
    maxBodyBytes: maxBytes,
    ...(size === undefined ? {} : { contentLength: size }),
  });
}

/**
 * The body as text, at most `maxBytes` (PAYLOAD_TOO_LARGE beyond: the stream is cancelled).
 * @example
 * const text = await readBodyText(req, 1024);
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(req, maxBytes));
}

/**
 * The raw body bytes, at most `maxBytes` (webhook signatures are computed over these).
 * @example
 * const bytes = await readBodyBytes(req, 1024);
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  assertDeclaredSize(req, maxBytes);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return all;
}

/**
 * The body parsed as JSON (an empty body is `{}`), at most `maxBytes`.
 * @example
 * const params = await readJsonBody(req, 1_048_576); // INVALID_ARGUMENT on malformed JSON
 */
export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(req, maxBytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FlowError("INVALID_ARGUMENT", `The request body is not valid JSON (${(error as Error).message}).`);
  }
}

/**
 * The body as the JSON object a writing route takes (an empty body is `{}`): an array, a
 * string, a number, a boolean or `null` answers INVALID_ARGUMENT before anything is done.
 * @example
 * const params = await readJsonObject(req, 1_048_576, "POST /v1/api/runs/:runId/cancel");
 */
export async function readJsonObject(req: Request, maxBytes: number, route: string): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req, maxBytes);
  if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new FlowError("INVALID_ARGUMENT", `${route} takes a JSON object as its body (or none), not ${body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`}.`, { route });
}

/**
 * The longest identifier a request may carry, in characters: run, node, cron, user and
 * delivery ids, workflow keys and signal names (docs/hosting.md "Limits").
 * @example
 * "r1".length <= MAX_ID_LENGTH; // true
 */
export const MAX_ID_LENGTH = 256;

/** The params that are identifiers: `id`, `*Id`, `workflow`, `name`. */
const ID_PARAM = /^(?:id|.*Id|workflow|name)$/;

/**
 * Throws INVALID_ARGUMENT (`details.param`, `details.maxLength`) when a top-level identifier of
 * `params` is a string longer than MAX_ID_LENGTH, so it never reaches the store.
 * @example
 * assertIdLengths({ runId: "x".repeat(300) }, "launchRun"); // throws INVALID_ARGUMENT
 */
export function assertIdLengths(params: unknown, what: string): void {
  if (typeof params !== "object" || params === null) return;
  for (const [key, value] of Object.entries(params)) {
    if (ID_PARAM.test(key) && typeof value === "string" && value.length > MAX_ID_LENGTH) {
      throw new FlowError("INVALID_ARGUMENT", `${what}: ${key} is ${value.length} characters long; identifiers are at most ${MAX_ID_LENGTH}.`, { param: key, length: value.length, maxLength: MAX_ID_LENGTH });
    }
  }
}
