/**
 * @module core/engine/input
 * Run input checks. SPEC.md: a fresh run validates its input before inserting it; the input is
 * not parsed into `ctx.input` and schema defaults are not written back. Flow checks the input
 * with the `input` schema itself (types, required fields and refinements such as `.email()`,
 * `z.enum`, `.positive()`), so `ctx.input` is what its type says, and stores the value as the
 * caller gave it.
 */
import { FlowError } from "../errors.js";
import type { TableEntry } from "../schema/index.js";

/** Throws INPUT_INVALID, with one line per zod issue, unless the input passes its schema. */
export function assertInputFits(entry: Pick<TableEntry, "schema"> | undefined, input: unknown): void {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new FlowError("INPUT_INVALID", `Run input must be an object, got ${Array.isArray(input) ? "an array" : String(input)}.`);
  }
  if (!entry) return;
  const parsed = entry.schema.safeParse(input);
  if (parsed.success) return;
  const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(input)"}: ${i.message}`);
  throw new FlowError("INPUT_INVALID", `Run input does not match the workflow's input schema: ${problems.join("; ")}.`, { problems });
}
