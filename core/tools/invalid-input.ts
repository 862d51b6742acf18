/**
 * @module core/tools/invalid-input
 * What a tool call whose input its schema refused says (TOOL_INPUT_INVALID), wherever it was
 * refused: by the tool itself (`defineTool`), or by the AI SDK before the tool ran (an SDK
 * agent's transcript), so a person and the model read the same short line.
 */

/** One schema issue: where in the input, and what is wrong (a zod issue). */
export interface InputIssue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * @example
 * invalidInputMessage("bash", [{ path: ["cmd"], message: "Invalid input: expected string, received undefined" }]);
 * // 'Tool "bash" got invalid input: cmd: Invalid input: expected string, received undefined. Call it again with input matching its schema.'
 */
export function invalidInputMessage(toolName: string, issues: readonly InputIssue[]): string {
  const listed = issues.map((i) => `${i.path.map(String).join(".") || "(input)"}: ${i.message}`).join("; ");
  return `Tool "${toolName}" got invalid input: ${listed}. Call it again with input matching its schema.`;
}
