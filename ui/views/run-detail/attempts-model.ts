/**
 * @module ui/views/run-detail/attempts-model
 * What the node panel says of a task that has no attempt, by its state: an attempt may yet come
 * (pending), it waits on the world, or it ended without running code (an approval decided, a
 * signal or timer answered, a task skipped or cancelled before it started); and which of its
 * attempts show as rows (`foldAttempts`).
 */
import { type Folded, foldAlike } from "../../../core/util/index.js";

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

/** A row of the attempts table: an attempt (the object given, so rows of a list that grows keep their elements), or the attempts folded between two. */
export type AttemptRow<A extends FoldableAttempt> = A | Folded<A>;

/**
 * The rows of a node's attempts table. A task retried for days (retries are unbounded by
 * default) has thousands of attempts, most failed the same way: of each stretch of at least
 * FOLD_FROM consecutive attempts with the same state and error, the first and the last are shown
 * and those between are one row (core/util `foldAlike`), unless its first attempt is in `unfolded`.
 * @example
 * foldAttempts(attempts, new Set()); // [#1, { folded: true, items: [#2 ... #399] }, #400, #401]
 */
export function foldAttempts<A extends FoldableAttempt>(attempts: readonly A[], unfolded: ReadonlySet<number>): AttemptRow<A>[] {
  return foldAlike(attempts, endedAlike, (inner) => unfolded.has(inner[0]!.attempt));
}

function endedAlike(a: FoldableAttempt, b: FoldableAttempt): boolean {
  return a.state === b.state && a.error?.code === b.error?.code && a.error?.message === b.error?.message;
}
