/**
 * @module core/engine/waits/payload-schema
 * The schema a signal or event wait records with its row (as JSON Schema), so that a delivery
 * made from another process (`flow signal`, the Gateway) is checked when it is made, without
 * the workflow's code: a payload the schema rejects is refused with SIGNAL_PAYLOAD_INVALID
 * instead of being stored and then silently passed over by the run. Refinements that JSON
 * Schema cannot express (`.refine`, transforms) are checked only by the run, as before.
 * See docs/waiting.md ("Checking deliveries").
 */
import { z } from "zod";
import { FlowError } from "../../errors.js";

/** JSON Schema of a zod schema, or undefined when there is none or it cannot be converted. */
export function recordedSchemaOf(schema: unknown): Record<string, unknown> | undefined {
  // Duck-typed: the workflow's zod may be another copy than Flow's.
  if (typeof schema !== "object" || schema === null || !("_zod" in schema)) return undefined;
  try {
    return z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Throws SIGNAL_PAYLOAD_INVALID when `payload` does not match the JSON Schema a wait recorded.
 * @example
 * checkPayload(request.schema, { ok: "yes" }, { kind: "signal", name: "go", runId: "r1", nodeId: "go" });
 */
export function checkPayload(recorded: unknown, payload: unknown, where: { kind: "signal" | "event"; name: string; runId: string; nodeId: string }): void {
  if (typeof recorded !== "object" || recorded === null) return;
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(recorded as z.core.JSONSchema.JSONSchema);
  } catch {
    return; // a schema this zod cannot rebuild: the run checks the payload when it takes it
  }
  const parsed = schema.safeParse(payload);
  if (parsed.success) return;
  const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(payload)"}: ${i.message}`).join("; ");
  throw new FlowError(
    "SIGNAL_PAYLOAD_INVALID",
    `The payload of ${where.kind} "${where.name}" does not match the schema of "${where.nodeId}" in run ${where.runId}: ${issues}. Nothing was delivered; send a payload that matches.`,
    { runId: where.runId, nodeId: where.nodeId, name: where.name, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  );
}
