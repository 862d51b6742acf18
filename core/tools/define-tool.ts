/**
 * @module core/tools/define-tool
 * `defineTool` and `getDefinedToolMetadata` (SPEC.md "Tools"; docs/tools.md). Every tool Flow
 * ships (built-ins, HTTP, OpenAPI) is made by `createTool` here, so validation, context
 * defaults, metadata and the binding of a task code's calls to its attempt
 * (core/tools/current-attempt.ts) work the same for all of them.
 */
import { z } from "zod";
import { FlowError } from "../errors.js";
import { currentAttempt } from "./current-attempt.js";
import { invalidInputMessage } from "./invalid-input.js";
import { completeToolContext, isCompleteContext } from "./tool-context.js";
import { type AnyTool, TOOL_METADATA, type DefineToolOptions, type JsonSchema, type Tool, type ToolContext, type ToolMetadata } from "./types.js";

/** What `createTool` needs; `schema` and `jsonSchema` may be computed lazily (large specs). */
export interface ToolParts<In, Out> {
  name: string;
  description: string;
  sideEffect: boolean;
  idempotent: boolean;
  schema: () => z.ZodType<unknown, In>;
  jsonSchema: () => JsonSchema;
  run(args: any, ctx: ToolContext): Out | Promise<Out>;
}

/** Builds a tool object; schemas are computed on first use and then kept. */
export function createTool<In, Out>(parts: ToolParts<In, Out>): Tool<In, Out> {
  const meta: ToolMetadata = { name: parts.name, sideEffect: parts.sideEffect, idempotent: parts.idempotent };
  let schema: z.ZodType<unknown, In> | undefined;
  let jsonSchema: JsonSchema | undefined;
  const tool = {
    name: parts.name,
    description: parts.description,
    sideEffect: parts.sideEffect,
    idempotent: parts.idempotent,
    get schema() {
      return (schema ??= parts.schema());
    },
    get jsonSchema() {
      return (jsonSchema ??= parts.jsonSchema());
    },
    async execute(args: In, ctx?: Partial<ToolContext>): Promise<Out> {
      const parsed = tool.schema.safeParse(args);
      if (!parsed.success) {
        throw new FlowError("TOOL_INPUT_INVALID", invalidInputMessage(parts.name, parsed.error.issues), {
          toolName: parts.name,
          issues: parsed.error.issues as unknown as Record<string, unknown>[],
        });
      }
      // Called from a task's own code: the call belongs to the attempt (its rootDir, key, journal).
      const attempt = ctx !== undefined && isCompleteContext(ctx, meta) ? undefined : currentAttempt();
      if (attempt) return (await (await attempt.toolCalls()).callTool<Out>(tool as unknown as AnyTool, args, ctx)).output;
      return await parts.run(parsed.data, completeToolContext(meta, ctx));
    },
  };
  Object.defineProperty(tool, TOOL_METADATA, { value: meta, enumerable: false });
  return tool as unknown as Tool<In, Out>;
}

/**
 * Defines a tool: input validated against `schema` before `execute`, `sideEffect` default
 * false, `idempotent` default `!sideEffect`. A `sideEffect && !idempotent` tool whose `execute`
 * does not take `ctx` (so cannot use `ctx.idempotencyKey`) logs a warning when defined.
 * @example
 * const sendEmail = defineTool({
 *   name: "sendEmail",
 *   description: "Send an email",
 *   schema: z.object({ to: z.string(), body: z.string() }),
 *   sideEffect: true,
 *   async execute({ to, body }, ctx) {
 *     return mailer.send({ to, body, idempotencyKey: ctx.idempotencyKey });
 *   },
 * });
 */
export function defineTool<S extends z.ZodType, O>(options: DefineToolOptions<S, O>): Tool<z.input<S>, Awaited<O>> {
  if (typeof options?.name !== "string" || options.name.length === 0) {
    throw new FlowError("INVALID_ARGUMENT", "defineTool needs a non-empty `name`.");
  }
  if (!(options.schema instanceof z.ZodType)) {
    throw new FlowError("INVALID_ARGUMENT", `defineTool "${options.name}" needs \`schema\`: a zod schema of the tool's input.`, { toolName: options.name });
  }
  if (typeof options.execute !== "function") {
    throw new FlowError("INVALID_ARGUMENT", `defineTool "${options.name}" needs an \`execute(args, ctx)\` function.`, { toolName: options.name });
  }
  const sideEffect = options.sideEffect ?? false;
  const idempotent = options.idempotent ?? !sideEffect;
  if (sideEffect && !idempotent && options.execute.length < 2) {
    console.warn(
      `[flow] Tool "${options.name}" has side effects and is not idempotent, but its execute(args) does not take ctx: it cannot use ctx.idempotencyKey to make retries safe. Declare execute(args, ctx) and pass ctx.idempotencyKey to the system it changes.`,
    );
  }
  const schema = options.schema;
  return createTool<z.input<S>, Awaited<O>>({
    name: options.name,
    description: options.description ?? options.name,
    sideEffect,
    idempotent,
    schema: () => schema as unknown as z.ZodType<unknown, z.input<S>>,
    jsonSchema: () => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema,
    run: (args, ctx) => options.execute(args as z.output<S>, ctx) as Awaited<O> | Promise<Awaited<O>>,
  });
}

/**
 * Reads the metadata `defineTool` stored on a tool (symbol key `flow.tool.metadata`); null for
 * plain tools and non-objects.
 * @example
 * getDefinedToolMetadata(write); // { name: "write", sideEffect: true, idempotent: false }
 * getDefinedToolMetadata({ execute() {} }); // null
 */
export function getDefinedToolMetadata(value: unknown): ToolMetadata | null {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return null;
  const meta = (value as Record<symbol, unknown>)[TOOL_METADATA];
  if (typeof meta !== "object" || meta === null) return null;
  const { name, sideEffect, idempotent } = meta as ToolMetadata;
  return { name, sideEffect, idempotent };
}
