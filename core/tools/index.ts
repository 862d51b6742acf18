/**
 * @module core/tools
 * The tools area: the tool contract, tool contexts and call records, the HTTP tool and tools
 * generated from OpenAPI descriptions (docs/tools.md). Built-in file and shell tools are Node
 * only: `durable-flow` (node/tools).
 */
export { defineTool, getDefinedToolMetadata } from "./define-tool.js";
export { invalidInputMessage } from "./invalid-input.js";
export type { InputIssue } from "./invalid-input.js";
export { createToolContextFactory } from "./tool-calls.js";
export { currentAttempt, installAttemptContext } from "./current-attempt.js";
export type { AttemptContextPort, CurrentAttempt } from "./current-attempt.js";
export type { ToolCallRecord, ToolCallResult, ToolContextFactory, ToolContextFactoryOptions } from "./tool-calls.js";
export { toolIdempotencyKey } from "./tool-context.js";
export type { ToolAttemptScope, ToolDurabilityHandle, ToolSnapshotRequest } from "./tool-context.js";
export { TOOL_DEFAULTS, TOOL_METADATA } from "./types.js";
export type { AnyTool, DefineToolOptions, JsonSchema, Tool, ToolContext, ToolMetadata } from "./types.js";
export { createHttpTool } from "./http-tool.js";
export type { HttpToolInput, HttpToolOptions } from "./http-tool.js";
export { HTTP_METHODS } from "./http-request.js";
export type { HttpMethod, HttpToolResult } from "./http-request.js";
export { loadOpenApiSpec } from "./openapi-load.js";
export { createOpenApiTool, createOpenApiTools, createOpenApiToolSync, createOpenApiToolsSync, listOperations } from "./openapi-tools.js";
export type { OpenApiTool } from "./openapi-tools.js";
export type { OpenApiToolArgs } from "./openapi-request.js";
export { OPENAPI_METHODS } from "./openapi-types.js";
export type {
  OpenApiAuth,
  OpenApiCuratedOperation,
  OpenApiInput,
  OpenApiMethod,
  OpenApiOperation,
  OpenApiOperationInfo,
  OpenApiParameter,
  OpenApiReadOptions,
  OpenApiSkippedOperation,
  OpenApiSpec,
  OpenApiToolsOptions,
} from "./openapi-types.js";

// For Flow's other areas (not part of the documented entry).
export { byteLength, OutputCollector } from "./output-limit.js";
