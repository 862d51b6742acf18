/**
 * @module e2e/support/domain-api
 * A Gateway's domain API (`/v1/api/...`) called from a test: the envelope unwrapped, an error
 * envelope thrown with its code and message, and a wait for a run's status.
 */

/**
 * The calls of the Gateway at `origin()`, read at each call (a test learns its port in `beforeAll`).
 * @example
 * const { call, reach } = domainApi(() => url);
 * await launch("release", { service: "api", shards: 1 }, "r1", "waiting-approval");
 * await call("POST", "/v1/api/approvals", { runId: "r1", nodeId: "ship", decision: "approve" });
 * await reach("r1", "finished");
 */
export function domainApi(origin: () => string) {
  async function call<T = any>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${origin()}${path}`, { method, headers: { "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const envelope = (await res.json()) as { ok: boolean; result?: T; error?: { code: string; message: string } };
    if (!envelope.ok) throw new Error(`${method} ${path}: ${envelope.error?.code} ${envelope.error?.message}`);
    return envelope.result as T;
  }
  /** A run's status (`?view=summary`). */
  const status = async (runId: string) => (await call<{ status: string }>("GET", `/v1/api/runs/${encodeURIComponent(runId)}?view=summary`)).status;
  /** Resolves once the run's status is `want` (10 s at most). */
  async function reach(runId: string, want: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if ((await status(runId)) === want) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`run ${runId} did not reach ${want}`);
  }
  /** Starts `workflow` as `runId` and resolves once its status is `until`. */
  async function launch(workflow: string, input: unknown, runId: string, until: string): Promise<void> {
    await call("POST", "/v1/api/runs", { workflow, input, runId });
    await reach(runId, until);
  }
  return { call, status, reach, launch };
}
