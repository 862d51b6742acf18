/**
 * @module core/util/first-line
 * A text of several lines (a human task's prompt with the text to work on below it) split into
 * its first line, which names it in a list, and the rest. The app's inbox and `flow approvals`
 * both name a human task this way.
 */

/**
 * The first line of `text` and what follows it, both trimmed ("" when there is nothing after).
 * @example
 * splitFirstLine("Give this draft a headline:\n\nThis month..."); // { first: "Give this draft a headline:", rest: "This month..." }
 */
export function splitFirstLine(text: string): { first: string; rest: string } {
  const trimmed = text.trim();
  const end = trimmed.indexOf("\n");
  return end < 0 ? { first: trimmed, rest: "" } : { first: trimmed.slice(0, end).trim(), rest: trimmed.slice(end + 1).trim() };
}
