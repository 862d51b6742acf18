/**
 * @module core/agents/output
 * Reads the structured output out of what an agent returned: a structured field (`output`,
 * `object`), or JSON found in its text (fenced or bare). Schema validation happens after.
 */

/** The candidate row in an agent result, or undefined when there is none. */
export function extractAgentOutput(result: unknown): unknown {
  if (result === null || result === undefined) return undefined;
  if (typeof result === "string") return parseJsonFromText(result);
  if (typeof result !== "object") return undefined;
  const r = result as Record<string, unknown>;
  for (const field of ["output", "object", "experimental_output"]) {
    if (r[field] !== undefined && r[field] !== null && typeof r[field] === "object") return r[field];
  }
  if (typeof r.text === "string") return parseJsonFromText(r.text);
  return result;
}

/** Finds a JSON object or array in free text: whole text, a ```json fence, or the outermost braces. */
export function parseJsonFromText(text: string): unknown {
  const attempts: string[] = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence?.[1]) attempts.push(fence[1].trim());
  const start = text.search(/[[{]/);
  if (start >= 0) {
    const close = text[start] === "{" ? "}" : "]";
    const end = text.lastIndexOf(close);
    if (end > start) attempts.push(text.slice(start, end + 1));
  }
  for (const a of attempts) {
    try {
      return JSON.parse(a);
    } catch {
      // try the next form
    }
  }
  return undefined;
}
