/**
 * @module ui/components/error-text
 * An error as a console shows it: the Flow code first (RUN_NOT_FOUND, INVALID_TRANSITION...),
 * then the message, which names the ids involved and what to do next.
 */

/**
 * The error's code, or undefined when it carries none.
 * @example
 * if (errorCode(e) === "RUN_NOT_FOUND") showNotFound();
 */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * `CODE: message` (or the message alone).
 * @example
 * errorText(new FlowError("INVALID_TRANSITION", "Run r1 already ended.")); // "INVALID_TRANSITION: Run r1 already ended."
 */
export function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === "string" ? message : String(error);
  const code = errorCode(error);
  return code && !text.startsWith(code) ? `${code}: ${text}` : text;
}
