/**
 * @module core/tools/types
 * The tool contract (SPEC.md "Tools"; docs/tools.md). A tool is a plain object: a name, a
 * description, an input schema in two forms (zod for validation, JSON Schema for models) and
 * `execute(args, ctx)`. Agent integrations convert it mechanically, e.g. to the AI SDK
 * `tool({ description, inputSchema, execute })` form.
 */
import type { z } from "zod";

/**
 * A JSON Schema object (draft 2020-12), as given to models.
 * @example
 * const input: JsonSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
 */
export type JsonSchema = Record<string, unknown>;

/**
 * The symbol key `getDefinedToolMetadata` reads (`Symbol.for("flow.tool.metadata")`).
 * @example
 * const meta = (write as any)[TOOL_METADATA]; // { name: "write", sideEffect: true, idempotent: false }
 */
export const TOOL_METADATA: unique symbol = Symbol.for("flow.tool.metadata") as never;

/**
 * What `getDefinedToolMetadata` returns for a tool made by `defineTool`.
 * @example
 * const meta: ToolMetadata = { name: "write", sideEffect: true, idempotent: false };
 */
export interface ToolMetadata {
  name: string;
  sideEffect: boolean;
  idempotent: boolean;
}

/**
 * The context a tool call runs in (SPEC.md `ToolContext`). The engine builds one per call with
 * `createToolContextFactory`; a direct `tool.execute(args)` gets the defaults.
 * @example
 * execute: async (args, ctx) => api.charge({ ...args, idempotencyKey: ctx.idempotencyKey })
 */
export interface ToolContext {
  /**
   * Deterministic per task and iteration: the same for the n-th call of this tool in every
   * attempt of the task (retries and resumes), different across tasks, iterations and tools.
   */
  idempotencyKey: string;
  toolName: string;
  sideEffect: boolean;
  idempotent: boolean;
  runId: string;
  nodeId: string;
  iteration: number;
  /** 1 for the first attempt of the task. */
  attempt: number;
  /** Task-local call counter of this attempt: 1 for the first tool call, whatever the tool. */
  seq: number;
  /** Sandbox root of the built-in tools (default: the process working directory). */
  rootDir: string;
  /** Whether `bash` may reach the network (default false). */
  allowNetwork: boolean;
  /** Output cap of the built-in tools (default 200000). */
  maxOutputBytes: number;
  /** Time limit of `bash`, `grep` and HTTP calls (default 60000). */
  timeoutMs: number;
  /** Aborted when the task is cancelled or times out (Flow addition; absent outside a run). */
  signal?: AbortSignal;
  /**
   * Asks the engine to snapshot the working copy before an effect (`name` says what, the
   * `toolUseId` which model call). A no-op unless the engine supplies a handle; never throws.
   */
  durabilitySnapshot(name: string, toolUseId: string): Promise<void>;
}

/**
 * Options of `defineTool` (SPEC.md table).
 * @example
 * const options: DefineToolOptions<typeof schema, string> = { name: "echo", schema, execute: ({ text }) => text };
 */
export interface DefineToolOptions<S extends z.ZodType, O> {
  /** Required; also the default description. */
  name: string;
  /** Default: `name`. */
  description?: string;
  /** Input schema; arguments are validated against it before `execute`. */
  schema: S;
  /** Whether the tool changes the world (default false). */
  sideEffect?: boolean;
  /** Whether running it twice equals running it once (default `!sideEffect`). */
  idempotent?: boolean;
  execute(args: z.output<S>, ctx: ToolContext): O | Promise<O>;
}

/**
 * A tool, as agents receive it. `execute` validates `args` against `schema` first; `ctx` may
 * be partial (missing fields get their defaults).
 * @example
 * const sdkTool = tool({ description: t.description, inputSchema: t.schema, execute: (args) => t.execute(args, ctx) });
 */
export interface Tool<In = any, Out = unknown> {
  readonly name: string;
  readonly description: string;
  /** The input schema as zod (validation, and what AI SDK `tool({ inputSchema })` accepts). */
  readonly schema: z.ZodType<unknown, In>;
  /** The input schema as JSON Schema (draft 2020-12), for model APIs and CLI agents. */
  readonly jsonSchema: JsonSchema;
  readonly sideEffect: boolean;
  readonly idempotent: boolean;
  execute(args: In, ctx?: Partial<ToolContext>): Promise<Out>;
  readonly [TOOL_METADATA]: ToolMetadata;
}

/**
 * Any tool, whatever its input and output types.
 * @example
 * const toolbox: Record<string, AnyTool> = { ...tools, http: createHttpTool() };
 */
export type AnyTool = Tool<any, any>;

/**
 * SPEC.md limits and defaults of the tool context.
 * @example
 * const limit = ctx.maxOutputBytes ?? TOOL_DEFAULTS.maxOutputBytes; // 200000
 */
export const TOOL_DEFAULTS = {
  allowNetwork: false,
  maxOutputBytes: 200_000,
  timeoutMs: 60_000,
  /** Hard cap of any process timeout (one hour). */
  maxTimeoutMs: 3_600_000,
} as const;
