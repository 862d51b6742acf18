/**
 * @module node/agents/cli/cli-types
 * The seam between the shared CLI agent machinery (base-cli-agent.ts) and each variant: a
 * variant turns a {@link CliCall} into a {@link CliCommand} (argv, stdin, env, an interpreter
 * for its output format) and nothing else. Also the small argv helpers every variant uses.
 */
import type { AgentEvent, AgentGenerateOptions, AgentUsage } from "../../../core/agents/index.js";
import type { CliProcess } from "./cli-process.js";

/**
 * SPEC.md `BaseCliAgentOptions`, shared by every CLI agent.
 * @example
 * const opts: BaseCliAgentOptions = { model: "sonnet", cwd: "/repo", timeoutMs: 600_000, idleTimeoutMs: 120_000 };
 */
export interface BaseCliAgentOptions {
  /** Default: a random UUID. */
  id?: string;
  /** Passed through; when omitted the CLI uses its own default model. */
  model?: string;
  systemPrompt?: string;
  /** Used as `systemPrompt` when that is not set. */
  instructions?: string;
  /** Working directory; default the call's `rootDir`, then the process's. */
  cwd?: string;
  /** Added to the process environment (later layers win). */
  env?: Record<string, string>;
  /** Most permissive mode (default true, except where a variant says otherwise). */
  yolo?: boolean;
  /** Hard wall-clock limit per generation. */
  timeoutMs?: number;
  /** Limit on time without any stdout/stderr output. */
  idleTimeoutMs?: number;
  /** Per-stream capture cap (default the call's, then 200000 bytes). */
  maxOutputBytes?: number;
  /** Appended after the generated flags, before the prompt; never validated. */
  extraArgs?: string[];
}

/** Everything a variant needs to build one command. */
export interface CliCall {
  /** The user prompt (system parts removed). */
  prompt: string;
  /** Agent system prompt, then system messages; undefined when empty. */
  systemText?: string;
  /** The agent's own system prompt (`systemPrompt`, else `instructions`). */
  agentSystem?: string;
  /** System messages of the call. */
  systemMessages: string[];
  /** The system text, a blank line, then the prompt (for CLIs without a system flag). */
  promptWithSystem: string;
  cwd: string;
  resumeSession?: string;
  /** Effective tool allowlist (undefined = leave the agent as configured). */
  allowTools?: string[];
  /** The caller listens to events (some CLIs then switch to a streaming format). */
  streaming: boolean;
  yolo: boolean;
  options: AgentGenerateOptions;
}

/** What an interpreter read out of a CLI's output. */
export interface InterpretedOutput {
  /** The final answer, when the format states one. */
  answer?: string;
  /** Text streamed along the way (deltas, assistant messages). */
  streamed?: string;
  sessionId?: string;
  usage?: AgentUsage;
  /** Structured output the CLI produced (a result object). */
  output?: unknown;
  /** false when the format reported a failed run (even with exit code 0). */
  ok?: boolean;
  /** Error text the format reported. */
  error?: string;
  /** The format reported a quota stop (e.g. a rejected rate-limit event). */
  quota?: boolean;
}

/** Reads a CLI's stdout line by line, emitting progress events. */
export interface CliInterpreter {
  onLine(line: string, emit: (event: AgentEvent) => void): void;
  finish(): InterpretedOutput;
}

/** An RPC conversation over stdin/stdout: resolves when the CLI's answer is complete. */
export type CliDriver = (proc: CliProcess, lines: AsyncIterable<string>) => Promise<void>;

/** A command a variant built. */
export interface CliCommand {
  command: string;
  args: string[];
  stdin?: string;
  /** Variables of the command (undefined removes an inherited one). */
  env?: Record<string, string | undefined>;
  /** A file the CLI writes its last message to (variant 2); read after the run. */
  outputFile?: string;
  cleanup?: () => void | Promise<void>;
  interpreter: CliInterpreter;
  /** Present for RPC modes: keeps stdin open and drives the conversation. */
  driver?: CliDriver;
  /** Session id known before the run (ids the wrapper generated, or passed in). */
  sessionId?: string;
  /** stdout lines removed before the answer is taken (banners). */
  banners?: RegExp[];
  /** stderr lines that never count as error text. */
  harmlessStderr?: RegExp[];
  /** A stdout line matching this means failure even with exit code 0. */
  stdoutError?: RegExp;
  /** A non-zero exit with empty (filtered) stderr is not a failure (variant 2). */
  exitCodeNeedsStderr?: boolean;
}

/** `[flag, value]` when the value is set. */
export function opt(flag: string, value: string | number | undefined | null): string[] {
  return value === undefined || value === null || value === "" ? [] : [flag, String(value)];
}

/** `[flag]` when the condition holds. */
export function flag(name: string, on: boolean | undefined): string[] {
  return on ? [name] : [];
}

/** One flag followed by all values (`--flag a b`), when the list is given. */
export function list(name: string, values: string[] | undefined): string[] {
  return values && values.length ? [name, ...values] : [];
}

/** The flag repeated before each value (`--flag a --flag b`). */
export function repeated(name: string, values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => [name, v]);
}

/** A comma-joined list value (`--tools a,b`). */
export function joined(name: string, values: string[] | undefined): string[] {
  return values && values.length ? [name, values.join(",")] : [];
}

/** Parses one JSON line; undefined for anything that is not a JSON object. */
export function jsonLine(line: string): Record<string, any> | undefined {
  const t = line.trim();
  if (!t.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(t);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** An interpreter for CLIs whose whole stdout is the answer. */
export function plainTextInterpreter(): CliInterpreter {
  return { onLine() {}, finish: () => ({}) };
}
