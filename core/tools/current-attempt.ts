/**
 * @module core/tools/current-attempt
 * The task attempt a tool call belongs to when a task's own code calls `tool.execute(...)`
 * (docs/tools.md "Tools in a task's code"). The engine runs a compute function with its
 * attempt current, through the host's `AttemptContextPort` (Node: an `AsyncLocalStorage`;
 * a browser has none); a tool executed without a complete context finds the attempt here
 * and goes through the attempt's tool-context factory, as an agent's calls do: the run's
 * `rootDir`, the attempt's idempotency keys, the call journal that rewinds report.
 *
 *   engine:  port.run(attempt, () => computeFn(runtime))
 *   task:    await bash.execute({ cmd: "git", args: [...] })   // no ctx
 *   tool:    currentAttempt() -> attempt.toolCalls() -> factory.callTool(bash, args)
 *
 * The port is installed once per process on `globalThis` under a `Symbol.for` key, so copies
 * of the package (a workflow file loaded through another path) share it.
 */
import type { ToolContextFactory } from "./tool-calls.js";

/**
 * What the engine makes current around a task's compute function.
 * @example
 * const attempt: CurrentAttempt = { toolCalls: () => (made ??= makeFactory()) };
 */
export interface CurrentAttempt {
  /** The attempt's tool-context factory, made on first use and shared with the task's agent. */
  toolCalls(): Promise<ToolContextFactory>;
}

/**
 * An async context that carries the current attempt across awaits; `AsyncLocalStorage` has
 * this shape.
 * @example
 * const port: AttemptContextPort = installAttemptContext(new AsyncLocalStorage<CurrentAttempt>());
 */
export interface AttemptContextPort {
  run<R>(attempt: CurrentAttempt, fn: () => R): R;
  getStore(): CurrentAttempt | undefined;
}

const PORT = Symbol.for("flow.tools.attemptContext");

/**
 * Installs the host's port unless one is installed already; returns the installed one (use
 * that one to run code, so tools read the context it sets).
 * @example
 * export const attemptContext = installAttemptContext(new AsyncLocalStorage<CurrentAttempt>());
 */
export function installAttemptContext(port: AttemptContextPort): AttemptContextPort {
  const holder = globalThis as Record<symbol, unknown>;
  return (holder[PORT] ??= port) as AttemptContextPort;
}

/**
 * The attempt whose code is running here, if any.
 * @example
 * const attempt = currentAttempt(); // undefined outside a task's compute function
 */
export function currentAttempt(): CurrentAttempt | undefined {
  return ((globalThis as Record<symbol, unknown>)[PORT] as AttemptContextPort | undefined)?.getStore();
}
