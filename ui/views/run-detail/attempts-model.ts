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
