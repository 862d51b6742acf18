/**
 * @module core/api/body
 * Request bodies under a byte limit. `Content-Length` is checked before routing; a body
 * without it is counted while it streams and the read stops at the limit (the rest is never
 * read). Malformed JSON answers INVALID_ARGUMENT.
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
