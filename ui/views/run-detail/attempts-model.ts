/**
 * @module ui/views/run-detail/attempts-model
 * What the node panel says of a task that has no attempt, by its state: an attempt may yet come
 * (pending), it waits on the world, or it ended without running code (an approval decided, a
 * signal or timer answered, a task skipped or cancelled before it started).
 */

/**
 * The note in place of a node's attempts when it has none.
 * @example
 * noAttemptsNote("finished"); // "No attempts: it finished without running code (a person, a signal or a timer answered it, or its row was given)."
 */
export function noAttemptsNote(state: string): string {
  if (state.startsWith("waiting-")) return "No attempt yet: it waits on a person, a signal or a timer, not on code.";
  if (state === "finished") return "No attempts: it finished without running code (a person, a signal or a timer answered it, or its row was given).";
  if (state === "failed") return "No attempts: it failed without running code (an approval denied, or a wait that timed out).";
  if (state === "skipped" || state === "cancelled") return `No attempts: it was ${state} before it ran.`;
  return "No attempt yet.";
}

/** What folding compares of an attempt. */
export interface FoldableAttempt {
  attempt: number;
  state: string;
  error: { code: string; message: string } | null;
}

/** The attempts folded between the first and the last of a stretch that ended alike (`first`..`last`, `count` of them). */
export interface FoldedAttempts {
  folded: true;
  first: number;
  last: number;
  count: number;
  state: string;
  error: FoldableAttempt["error"];
}

/** A row of the attempts table: an attempt (the object given, so rows of a list that grows keep their elements), or folded ones. */
export type AttemptRow<A extends FoldableAttempt> = A | FoldedAttempts;

/** Whether a row of the attempts table is folded attempts. */
export function isFolded<A extends FoldableAttempt>(row: AttemptRow<A>): row is FoldedAttempts {
  return "folded" in row;
}

/** Attempts in a row that ended alike from which the ones between the first and the last are folded. */
export const FOLD_FROM = 5;

/**
 * The rows of a node's attempts table. A task retried for days (retries are unbounded by
 * default) has thousands of attempts, most failed the same way: of each stretch of at least
 * FOLD_FROM consecutive attempts with the same state and error, the first and the last are shown
 * and those between are one row, unless its first attempt is in `unfolded`.
 * @example
 * foldAttempts(attempts, new Set()); // [#1, { folded: true, first: 2, last: 399, count: 398, ... }, #400, #401]
 */
export function foldAttempts<A extends FoldableAttempt>(attempts: readonly A[], unfolded: ReadonlySet<number>): AttemptRow<A>[] {
  const rows: AttemptRow<A>[] = [];
  for (let start = 0; start < attempts.length; ) {
    let end = start + 1;
    while (end < attempts.length && endedAlike(attempts[start]!, attempts[end]!)) end++;
    const inner = attempts.slice(start + 1, end - 1);
    if (end - start >= FOLD_FROM && !unfolded.has(inner[0]!.attempt)) {
      const first = attempts[start]!;
      rows.push(first, { folded: true, first: inner[0]!.attempt, last: inner.at(-1)!.attempt, count: inner.length, state: first.state, error: first.error }, attempts[end - 1]!);
    } else {
      rows.push(...attempts.slice(start, end));
    }
    start = end;
  }
  return rows;
}

function endedAlike(a: FoldableAttempt, b: FoldableAttempt): boolean {
  return a.state === b.state && a.error?.code === b.error?.code && a.error?.message === b.error?.message;
}
