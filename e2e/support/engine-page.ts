/**
 * @module e2e/support/engine-page
 * Drives the engine in a page's browser from a test: waits until the page's engine answers, and
 * calls its domain API through the page's own `fetch` (`__FLOW_ENGINE__`, browser/client.ts), so
 * every call crosses comlink, the worker and (in a follower tab) the leader's worker as the
 * app's own calls do.
 */
import type { Page } from "playwright-core";

/** The page's engine answered; `role` and `storage` as it reports them. */
export async function engineReady(page: Page, timeoutMs = 45_000): Promise<{ role: string; storage: string }> {
  await page.waitForFunction(() => "__FLOW_ENGINE__" in globalThis, null, { timeout: timeoutMs });
  return page.evaluate(async () => {
    const engine = (globalThis as unknown as { __FLOW_ENGINE__: { ready(): Promise<void>; role: string; storage: string } }).__FLOW_ENGINE__;
    await engine.ready();
    return { role: engine.role, storage: engine.storage };
  });
}

/**
 * One domain API call through the page's engine; answers the envelope's `result` (throws on an error envelope).
 * @example
 * const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "hello", input: { name: "Ada" } });
 */
export async function engineCall<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const envelope = await page.evaluate(
    async ({ method, path, body }) => {
      const engine = (globalThis as unknown as { __FLOW_ENGINE__: { fetch(url: string, init: RequestInit): Promise<Response> } }).__FLOW_ENGINE__;
      const res = await engine.fetch(`http://flow.worker${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
      return res.json();
    },
    { method, path, body },
  );
  if (!envelope.ok) throw new Error(`${method} ${path}: ${envelope.error.code} ${envelope.error.message}`);
  return envelope.result as T;
}

/** A run's events. */
export type RunEvent = { type: string; nodeId?: string; takeover?: boolean; seq: number; timestampMs: number };

/** The events of a run so far. */
export async function runEvents(page: Page, runId: string): Promise<RunEvent[]> {
  return (await engineCall<{ events: RunEvent[] }>(page, "GET", `/v1/api/runs/${runId}/events?limit=10000`)).events;
}

/** A run's status. */
export async function runStatus(page: Page, runId: string): Promise<string> {
  return (await engineCall<{ status: string }>(page, "GET", `/v1/api/runs/${runId}?view=summary`)).status;
}

/** Polls `probe` until it answers something `done` accepts (every 100 ms, up to `timeoutMs`). */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await probe();
      if (done(last)) return last;
    } catch (error) {
      if (Date.now() > end) throw error;
    }
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many times each node finished (TaskFinished events), by node id. */
export function finishesByNode(events: RunEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of events) if (e.type === "TaskFinished" && e.nodeId) out.set(e.nodeId, (out.get(e.nodeId) ?? 0) + 1);
  return out;
}
