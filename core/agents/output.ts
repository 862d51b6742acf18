/**
 * @module core/agents/output
 * Structured output for agents without a native schema response format: the prompt block that
 * asks for raw JSON, the correction prompt after a failed validation, and the extraction that
 * finds the JSON object in what the agent returned (docs/agents.md, "Structured output").
 *
 * Extraction order, first hit wins (CLI-AGENTS.md section 3):
 * 1. a structured `output` (or `object`) field of the result;
 * 2. the whole text (BOM removed) when it starts with `{` or `[`;
 * 3. the balanced object after the last ```json (or bare ```) fence of the text;
 * 4. fences in the step texts, newest first;
 * 5. the first balanced object of each step text, newest first;
 * 6. the balanced object of the text whose closing brace is rightmost.
 */
import { z } from "zod";

/** Marker of the block that asks for raw JSON; CLI agents that add their own reminder look for it. */
export const REQUIRED_OUTPUT_MARKER = "**REQUIRED OUTPUT**";

/**
 * The candidate row in an agent result (an {@link AgentResult}, an AI SDK result, a string),
 * or undefined when none is found. Validation against the task schema happens after.
 * @example
 * extractAgentOutput({ text: "Done.\n```json\n{\"ok\":true}\n```" }); // { ok: true }
 */
export function extractAgentOutput(result: unknown): unknown {
  if (result === null || result === undefined) return undefined;
  if (typeof result === "string") return parseJsonFromText(result);
  if (typeof result !== "object") return undefined;
  for (const field of ["output", "object"]) {
    const value = readField(result, field);
    if (value !== undefined && value !== null && typeof value === "object") return value;
  }
  const text = readField(result, "text");
  const steps = readField(result, "steps");
  const stepTexts = Array.isArray(steps) ? steps.map((s) => (typeof s?.text === "string" ? (s.text as string) : "")).reverse() : [];
  if (typeof text !== "string") return stepTexts.length ? firstDefined(stepTexts, parseJsonFromText) : undefined;
  return (
    parseWhole(text) ??
    fromLastFence(text) ??
    firstDefined(stepTexts, fromLastFence) ??
    firstDefined(stepTexts, (t) => balancedObjects(t).map(tryParse).find((v) => v !== undefined)) ??
    rightmostObject(text)
  );
}

/**
 * Finds a JSON value in free text: the whole text, the last ```json fence, or the balanced
 * object whose closing brace is rightmost.
 * @example
 * parseJsonFromText('Result: {"passed": 12} (done)'); // { passed: 12 }
 */
export function parseJsonFromText(text: string): unknown {
  return parseWhole(text) ?? fromLastFence(text) ?? rightmostObject(text);
}

/**
 * The prompt for an agent without native structured output: an instruction line first, the
 * task prompt, then the REQUIRED OUTPUT block with the schema's JSON shape.
 * @example
 * withRequiredOutput("Count the tests.", z.object({ passed: z.number() }));
 */
export function withRequiredOutput(prompt: string, schema: unknown): string {
  return `Respond by outputting only a raw JSON object, with no other text.\n\n${prompt}\n\n${requiredOutputBlock(schema)}`;
}

/**
 * The prompt of a schema correction call: what was wrong, then the REQUIRED OUTPUT block again.
 * @example
 * correctionPrompt(["passed: expected number"], schema);
 */
export function correctionPrompt(problems: string[], schema: unknown): string {
  const why = problems.length ? problems.map((p) => `- ${p}`).join("\n") : "- no JSON object was found in your reply";
  return `Your previous reply did not satisfy the required output schema:\n${why}\n\nReply again with the corrected result.\n\n${requiredOutputBlock(schema)}`;
}

/** JSON Schema of a zod schema (as the model should write it), or undefined for other values. */
export function jsonSchemaOf(schema: unknown): Record<string, unknown> | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function requiredOutputBlock(schema: unknown): string {
  const shape = jsonSchemaOf(schema);
  return [
    REQUIRED_OUTPUT_MARKER,
    "Your final answer must be a single JSON object that matches this JSON Schema:",
    shape ? JSON.stringify(shape) : "(an object)",
    "Do not add prose, explanations or code fences. The first character of your answer must be { and the last must be }.",
  ].join("\n");
}

function readField(result: object, field: string): any {
  try {
    // AI SDK results throw from some getters (e.g. `output` without an output spec).
    return (result as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}

function firstDefined(texts: string[], find: (text: string) => unknown): unknown {
  for (const t of texts) {
    const v = find(t);
    if (v !== undefined) return v;
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseWhole(text: string): unknown {
  const t = text.replace(/^\uFEFF/, "").trim();
  return t.startsWith("{") || t.startsWith("[") ? tryParse(t) : undefined;
}

function fromLastFence(text: string): unknown {
  // Fences alternate opening/closing: even matches open a block, which ends at the next match.
  const fences = [...text.matchAll(/```(?:json)?[^\n`]*\n?/gi)];
  if (fences.length === 0) return undefined;
  for (let i = fences.length - 1 - ((fences.length - 1) % 2); i >= 0; i -= 2) {
    const start = fences[i]!.index! + fences[i]![0].length;
    const end = fences[i + 1]?.index ?? text.length;
    const found = balancedObjects(text.slice(start, end)).map(tryParse).find((v) => v !== undefined);
    if (found !== undefined) return found;
  }
  return undefined;
}

function rightmostObject(text: string): unknown {
  const candidates = balancedObjects(text);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const v = tryParse(candidates[i]!);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * Top-level balanced `{...}` spans of a text, in order, found in one linear pass with a stack.
 * String state is only tracked inside braces (prose apostrophes never start a string); escapes
 * inside strings are honoured.
 */
function balancedObjects(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return out;
}
