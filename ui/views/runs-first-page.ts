/**
 * @module ui/views/runs-first-page
 * The runs list's first page and count, kept in this browser (localStorage, per runs
 * collection), so a list opened again shows its newest rows and how many runs there are in its
 * first frame, while the whole collection loads: a team workspace opened offline reads 10,000
 * kept runs from IndexedDB before its collection is ready (docs/performance.md "A team
 * workspace offline"). The page is small (`FIRST_PAGE_ROWS` rows) and read synchronously.
 */
import type { GatewayRunSummaryRow } from "../../core/data/index.js";

/** How many of the newest runs are kept. */
export const FIRST_PAGE_ROWS = 50;

/** The kept first page: the newest runs, the count of all, and when they were kept. */
export interface FirstPage {
  rows: GatewayRunSummaryRow[];
  count: number;
  atMs: number;
}

const key = (collectionId: string) => `flow-runs-first-page:${collectionId}`;

/**
 * The first page kept for a runs collection, if any.
 * @example
 * const kept = readFirstPage(cols.runs.id); // { rows: [...50 newest], count: 10000, atMs }
 */
export function readFirstPage(collectionId: string): FirstPage | undefined {
  try {
    const kept = JSON.parse(localStorage.getItem(key(collectionId)) ?? "null") as FirstPage | null;
    return kept && Array.isArray(kept.rows) && typeof kept.count === "number" ? kept : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the first page of `rows` (sorted newest first, the whole collection) and their count.
 * @example
 * keepFirstPage(cols.runs.id, allRunsNewestFirst);
 */
export function keepFirstPage(collectionId: string, rows: readonly GatewayRunSummaryRow[]): void {
  try {
    localStorage.setItem(key(collectionId), JSON.stringify({ rows: rows.slice(0, FIRST_PAGE_ROWS), count: rows.length, atMs: Date.now() } satisfies FirstPage));
  } catch {
    // Storage full or refused: the list opens without a first page, as before.
  }
}
