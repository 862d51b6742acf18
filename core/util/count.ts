/**
 * @module core/util/count
 * Counts as people read them, the same in the app and in the CLI: grouped as the locale writes
 * them, with their noun singular for one.
 */

/**
 * A count with its noun, singular for one ("1 input", "3 inputs").
 * @example
 * plural(1, "run"); // "1 run"
 */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;
}

// One formatter, as for dates: `Number#toLocaleString` builds one per call too (a live run's
// page formats its counts at every update: 11 ms of a 100-task run's).
let counts: Intl.NumberFormat | undefined;

/**
 * A count grouped as the locale writes it (`10,000` in en-US).
 * @example
 * formatCount(12_345); // "12,345"
 */
export function formatCount(n: number): string {
  counts ??= new Intl.NumberFormat();
  return counts.format(n);
}
