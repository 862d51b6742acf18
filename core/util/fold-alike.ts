/**
 * @module core/util/fold-alike
 * Long stretches of items that ended alike, folded to their first, their last and one stand-in
 * for those between: how the app's attempts table and `flow timeline` show a task retried
 * thousands of times (retries are unbounded by default) without thousands of identical lines.
 */

/** The items folded between the first and the last of a stretch (`items`, two or more). */
export interface Folded<T> {
  folded: true;
  items: T[];
}

/** Items in a row that are alike from which the ones between the first and the last are folded. */
export const FOLD_FROM = 5;

/**
 * `items` with each stretch of at least FOLD_FROM consecutive items that are `alike` (each to
 * the stretch's first) folded between its first and its last, unless `keepOpen` says so of the
 * folded ones.
 * @example
 * foldAlike([1, 1, 1, 1, 1, 2], (a, b) => a === b); // [1, { folded: true, items: [1, 1, 1] }, 1, 2]
 */
export function foldAlike<T>(items: readonly T[], alike: (a: T, b: T) => boolean, keepOpen: (inner: readonly T[]) => boolean = () => false): Array<T | Folded<T>> {
  const rows: Array<T | Folded<T>> = [];
  for (let start = 0; start < items.length; ) {
    let end = start + 1;
    while (end < items.length && alike(items[start]!, items[end]!)) end++;
    const inner = items.slice(start + 1, end - 1);
    if (end - start >= FOLD_FROM && !keepOpen(inner)) rows.push(items[start]!, { folded: true, items: inner }, items[end - 1]!);
    else rows.push(...items.slice(start, end));
    start = end;
  }
  return rows;
}

/**
 * Whether a row of `foldAlike`'s answer is folded items.
 * @example
 * rows.filter(isFolded).length; // how many stretches were folded
 */
export function isFolded<T>(row: T | Folded<T>): row is Folded<T> {
  return typeof row === "object" && row !== null && (row as { folded?: unknown }).folded === true && Array.isArray((row as { items?: unknown }).items);
}
