/**
 * @module ui/components/bulk-action
 * Runs one action over many items with a few in flight at a time, reporting progress as each
 * settles and answering a summary (which succeeded, which failed and why). The runs list's
 * bulk cancel and resume use it; a failure of one item never stops the others.
 */

/** Progress of a bulk action. */
export interface BulkProgress {
  done: number;
  total: number;
  failed: number;
}

/** What a bulk action did. */
export interface BulkSummary {
  ok: string[];
  failed: Array<{ id: string; message: string; code?: string }>;
  /** Items the caller stopped before they were sent. */
  skipped: string[];
}

/** Options of `runBulk`. */
export interface BulkOptions {
  /** Items in flight at once (default 6). */
  concurrency?: number;
  onProgress?(progress: BulkProgress): void;
  /** Stops sending further items (those in flight still settle). */
  signal?: AbortSignal;
}

/**
 * Applies `action` to every id.
 * @example
 * const summary = await runBulk(selectedIds, (id) => cols.cancel(id), { onProgress: setProgress });
 * console.log(`${summary.ok.length} cancelled, ${summary.failed.length} failed`);
 */
export async function runBulk(ids: readonly string[], action: (id: string) => Promise<unknown>, opts: BulkOptions = {}): Promise<BulkSummary> {
  const summary: BulkSummary = { ok: [], failed: [], skipped: [] };
  const total = ids.length;
  let next = 0;
  const report = () => opts.onProgress?.({ done: summary.ok.length + summary.failed.length, total, failed: summary.failed.length });
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      if (opts.signal?.aborted) {
        summary.skipped.push(id);
        continue;
      }
      try {
        await action(id);
        summary.ok.push(id);
      } catch (error) {
        const e = error as { message?: string; code?: string };
        summary.failed.push({ id, message: e?.message ?? String(error), ...(typeof e?.code === "string" ? { code: e.code } : {}) });
      }
      report();
    }
  };
  report();
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 6, ids.length)) }, worker));
  return summary;
}
