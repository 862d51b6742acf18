/**
 * @module node/tools/openapi
 * The OpenAPI functions of the Node entry: the core ones (core/tools/openapi-tools.ts) with a
 * file reader, so `input` may be a file path (relative to the process working directory) and
 * references to other files resolve from the description's own directory. Explicit
 * `readFile`/`readFileSync` options still win.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import * as core from "../../core/tools/index.js";
import { loadOpenApiSpec as coreLoadOpenApiSpec } from "../../core/tools/index.js";
import type { OpenApiInput, OpenApiOperationInfo, OpenApiReadOptions, OpenApiSpec, OpenApiToolsOptions } from "../../core/tools/index.js";

const readers: OpenApiReadOptions = {
  readFile: (path) => readFile(resolve(path), "utf8"),
  readFileSync: (path) => readFileSync(resolve(path), "utf8"),
};

/** A file-path input becomes absolute, so relative references resolve from its directory. */
function absolute(input: OpenApiInput): OpenApiInput {
  if (typeof input !== "string") return input;
  const t = input.trim();
  const isPath = !/^https?:\/\//i.test(t) && !t.startsWith("{") && !t.includes("\n") && !/^(openapi|swagger)\s*:/.test(t) && !t.startsWith("file://");
  return isPath ? resolve(t) : input;
}

/**
 * `createOpenApiTools` with file paths: one tool per operation of the description.
 * @example
 * const petstore = await createOpenApiTools("./openapi/petstore.yaml", { baseUrl: "http://localhost:8080" });
 */
export function createOpenApiTools(input: OpenApiInput, options: OpenApiToolsOptions = {}): Promise<Record<string, core.OpenApiTool>> {
  return core.createOpenApiTools(absolute(input), { ...readers, ...options });
}

/**
 * `createOpenApiToolsSync` with file paths.
 * @example
 * const petstore = createOpenApiToolsSync("./openapi/petstore.json", { include: ["getPetById"] });
 */
export function createOpenApiToolsSync(input: OpenApiInput, options: OpenApiToolsOptions = {}): Record<string, core.OpenApiTool> {
  return core.createOpenApiToolsSync(absolute(input), { ...readers, ...options });
}

/**
 * `createOpenApiTool` with file paths.
 * @example
 * const getPet = await createOpenApiTool("./openapi/petstore.yaml", "getPetById");
 */
export function createOpenApiTool(input: OpenApiInput, operationId: string, options: OpenApiToolsOptions = {}): Promise<core.OpenApiTool> {
  return core.createOpenApiTool(absolute(input), operationId, { ...readers, ...options });
}

/**
 * `createOpenApiToolSync` with file paths.
 * @example
 * const getPet = createOpenApiToolSync("./openapi/petstore.json", "getPetById");
 */
export function createOpenApiToolSync(input: OpenApiInput, operationId: string, options: OpenApiToolsOptions = {}): core.OpenApiTool {
  return core.createOpenApiToolSync(absolute(input), operationId, { ...readers, ...options });
}

/**
 * `listOperations` with file paths.
 * @example
 * listOperations("./openapi/petstore.yaml").map((op) => op.operationId);
 */
export function listOperations(input: OpenApiInput, options: OpenApiReadOptions = {}): OpenApiOperationInfo[] {
  return core.listOperations(absolute(input), { ...readers, ...options });
}

/**
 * `loadOpenApiSpec` with file paths: the description as one object, references bundled.
 * @example
 * const spec = await loadOpenApiSpec("./openapi/main.yaml");
 */
export function loadOpenApiSpec(input: OpenApiInput, options: OpenApiReadOptions = {}): Promise<OpenApiSpec> {
  return coreLoadOpenApiSpec(absolute(input), { ...readers, ...options });
}
