/**
 * @module core/agents/types
 * The agent contract (SPEC.md "Agents"). Any object with `generate` is an agent: the SDK and
 * CLI agents Flow ships, an AI SDK `ToolLoopAgent`, or your own.
 */

/** Options passed to `AgentLike.generate` (SPEC.md `AgentGenerateOptions`). */
export interface AgentGenerateOptions {
  prompt?: string;
  messages?: unknown[];
  timeout?: number;
  abortSignal?: AbortSignal;
  rootDir?: string;
  resumeSession?: string;
  maxOutputBytes?: number;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  onEvent?: (event: unknown) => void;
  retry?: boolean;
  isRetry?: boolean;
  retryAttempt?: number;
  schemaRetry?: number;
  /** The zod schema the result must satisfy. */
  outputSchema?: unknown;
  taskContext?: { runId?: string; nodeId?: string; iteration?: number; attempt?: number };
  [extra: string]: unknown;
}

/** SPEC.md `AgentLike`. */
export interface AgentLike {
  id?: string;
  generate(args?: AgentGenerateOptions): Promise<unknown>;
  tools?: Record<string, unknown>;
  capabilities?: unknown;
  supportsNativeStructuredOutput?: boolean;
  /** Runs once before the first generation; a rejection fails the task without retry. */
  preflight?(args?: AgentGenerateOptions): Promise<void>;
}

/** True for an object that can act as an agent. */
export function isAgentLike(value: unknown): value is AgentLike {
  return typeof value === "object" && value !== null && typeof (value as AgentLike).generate === "function";
}
