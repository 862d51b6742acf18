/**
 * @module e2e/support/last-seen
 * Reads what a page's app kept in this browser's last-seen store (IndexedDB `flow-last-seen`,
 * ui/workspace/last-seen.ts), so a test waits until the rows it needs are kept instead of
 * sleeping before it takes the network or the engine away.
 */
import type { Page } from "playwright-core";

/**
 * Whether a collection whose id ends with `idSuffix` (`flow:<apiBaseUrl>:<name>`) is kept with
 * `text` in its rows.
 * @example
 * await until(() => lastSeenHolds(page, "flow.worker:runs", runId), (kept) => kept, "the runs list kept");
 */
export function lastSeenHolds(page: Page, idSuffix: string, text: string): Promise<boolean> {
  return page.evaluate(
    ({ idSuffix, text }) =>
      new Promise<boolean>((resolve) => {
        // The version the app made (no version asked: asking an older one fails), closed after
        // reading so the app's own upgrade is never blocked by this connection.
        const req = indexedDB.open("flow-last-seen");
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains("loads")) return db.close(), resolve(false);
          const all = db.transaction("loads").objectStore("loads").getAll();
          all.onsuccess = () => {
            db.close();
            const kept = (all.result as { id: string; value: unknown }[]).filter((s) => s.id.endsWith(idSuffix));
            resolve(kept.some((s) => JSON.stringify(s.value ?? []).includes(text)));
          };
          all.onerror = () => (db.close(), resolve(false));
        };
        req.onerror = () => resolve(false);
      }),
    { idSuffix, text },
  );
}
