/**
 * @module node/client/testing
 * Helpers of the client and data-layer tests (test-only; not exported).
 */

/** Polls `read` every 10 ms until `ok` holds; throws naming `what` (and the last value) after `ms`. */
export async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every item of an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}
