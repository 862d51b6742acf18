/**
 * @module core/tools/openapi-tools
 * Tools from an OpenAPI 3.x description (SPEC.md "OpenAPI tools"; docs/tools.md). One tool per
 * operation (`get`, `post`, `put`, `delete`, `patch`), keyed by operationId or curated name,
 * with the summary/description as its description and the operation's parameters and body as
 * its input. `execute(args)` validates the input and performs the call, resolving to the
 * HTTP tool's result shape. GET is read-only; PUT and DELETE are idempotent side effects;
 * POST and PATCH are non-idempotent side effects (warned on retry).
 */
import { z } from "zod";
import { FlowError, isFlowError } from "../errors.js";
import { createTool } from "./define-tool.js";
import { sendHttp, type HttpToolResult } from "./http-request.js";
import { loadOpenApiSource, loadOpenApiSpecSync, type LoadedSpec } from "./openapi-load.js";
import { collectOperations, operationInfos, planOperation, type OperationEntry, type OperationPlan } from "./openapi-operations.js";
import { buildRequest, type OpenApiToolArgs, type RequestContext } from "./openapi-request.js";
import { SchemaConverter } from "./openapi-schema.js";
import type { OpenApiCuratedOperation, OpenApiInput, OpenApiOperationInfo, OpenApiReadOptions, OpenApiSkippedOperation, OpenApiToolsOptions } from "./openapi-types.js";
import type { Tool } from "./types.js";

/**
 * A tool made from an OpenAPI operation.
 * @example
 * const getPet: OpenApiTool = createOpenApiToolSync(spec, "getPet");
 */
export type OpenApiTool = Tool<OpenApiToolArgs, HttpToolResult>;

/**
 * Makes one tool per selected operation, keyed by operationId (or curated `name`), with
 * `namePrefix` in front. Fetches URL inputs and bundles references to other documents.
 * @example
 * const github = await createOpenApiTools("https://example.com/openapi.yaml", {
 *   include: ["repos/get", "issues/create"],
 *   auth: { type: "bearer", token: process.env.GITHUB_TOKEN! },
 *   namePrefix: "gh_",
 * });
 * await github["gh_repos/get"].execute({ path: { owner: "octo", repo: "hello" } });
 */
export async function createOpenApiTools(input: OpenApiInput, options: OpenApiToolsOptions = {}): Promise<Record<string, OpenApiTool>> {
  return buildTools(await loadOpenApiSource(input, options), options);
}

/**
 * As `createOpenApiTools`, synchronously: never fetches URLs and refuses references to other
 * documents; a file path is read with `readFileSync` (the Node entry supplies it).
 * @example
 * const tools = createOpenApiToolsSync(petstoreSpec, { baseUrl: "http://localhost:8080/v3" });
 */
export function createOpenApiToolsSync(input: OpenApiInput, options: OpenApiToolsOptions = {}): Record<string, OpenApiTool> {
  return buildTools(loadOpenApiSpecSync(input, options), options);
}

/**
 * The tool of one operation (`include`/`exclude` ignored; curated `name`/`description` apply).
 * @example
 * const getPet = await createOpenApiTool("./petstore.yaml", "getPetById", { baseUrl });
 * const res = await getPet.execute({ path: { petId: 7 } });
 */
export async function createOpenApiTool(input: OpenApiInput, operationId: string, options: OpenApiToolsOptions = {}): Promise<OpenApiTool> {
  return buildOne(await loadOpenApiSource(input, options), operationId, options);
}

/**
 * As `createOpenApiTool`, synchronously (no URL inputs, no references to other documents).
 * @example
 * const getPet = createOpenApiToolSync(petstoreSpec, "getPetById");
 */
export function createOpenApiToolSync(input: OpenApiInput, operationId: string, options: OpenApiToolsOptions = {}): OpenApiTool {
  return buildOne(loadOpenApiSpecSync(input, options), operationId, options);
}

/**
 * Lists the operations of a description: `{ operationId, method, path, summary }` each
 * (summary "" when absent). Synchronous: a URL must be loaded first with `loadOpenApiSpec`.
 * @example
 * for (const op of listOperations(spec)) console.log(op.method, op.path, op.operationId);
 */
export function listOperations(input: OpenApiInput, options: OpenApiReadOptions = {}): OpenApiOperationInfo[] {
  const { spec } = loadOpenApiSpecSync(input, options);
  return operationInfos(collectOperations(spec, new SchemaConverter(spec)));
}

function buildTools(loaded: LoadedSpec, options: OpenApiToolsOptions): Record<string, OpenApiTool> {
  const converter = new SchemaConverter(loaded.spec);
  const entries = collectOperations(loaded.spec, converter);
  const known = new Set(entries.map((e) => e.operationId));
  const named = [...(options.include ?? []), ...(options.exclude ?? []), ...Object.keys(options.operations ?? {})];
  const unknown = [...new Set(named.filter((id) => !known.has(id)))];
  if (unknown.length > 0) {
    throw new FlowError("OPENAPI_OPERATION_NOT_FOUND", `The options name operations that "${loaded.spec.info?.title ?? "the description"}" does not have: ${unknown.join(", ")}. listOperations(spec) shows the ids.`, { operationIds: unknown });
  }
  const rc = requestContext(loaded, options);
  const tools: Record<string, OpenApiTool> = {};
  const skipped: OpenApiSkippedOperation[] = [];
  for (const entry of entries) {
    const selection = selected(entry.operationId, options);
    if (selection === "no") continue;
    let plan: OperationPlan;
    try {
      plan = planOperation(entry, converter);
    } catch (error) {
      // An operation the user named is an error; one of many in a big description is skipped.
      if (selection === "named" || !isFlowError(error) || !error.code.startsWith("OPENAPI_")) throw error;
      skipped.push({ operationId: entry.operationId, method: entry.method, path: entry.path, reason: error.message });
      continue;
    }
    const name = toolName(entry, options);
    if (tools[name]) throw new FlowError("INVALID_ARGUMENT", `Two OpenAPI operations would both be the tool "${name}"; give one a different curated name.`, { name });
    tools[name] = makeTool(plan, name, rc);
  }
  if (skipped.length > 0) (options.onSkip ?? warnSkipped)(skipped);
  return tools;
}

function buildOne(loaded: LoadedSpec, operationId: string, options: OpenApiToolsOptions): OpenApiTool {
  const converter = new SchemaConverter(loaded.spec);
  const entry = collectOperations(loaded.spec, converter).find((e) => e.operationId === operationId);
  if (!entry) {
    throw new FlowError("OPENAPI_OPERATION_NOT_FOUND", `No operation "${operationId}" in "${loaded.spec.info?.title ?? "the OpenAPI description"}". listOperations(spec) shows the ids.`, { operationId });
  }
  return makeTool(planOperation(entry, converter), toolName(entry, options), requestContext(loaded, options));
}

/** "named" when the options ask for it by id, "yes" when selected by default, "no" when left out. */
function selected(id: string, options: OpenApiToolsOptions): "named" | "yes" | "no" {
  const curated = options.operations?.[id];
  if (options.exclude?.includes(id) || curated === false || curated?.include === false) return "no";
  if (curated?.include === true || options.include?.includes(id)) return "named";
  return options.include ? "no" : "yes";
}

function toolName(entry: OperationEntry, options: OpenApiToolsOptions): string {
  const curated = options.operations?.[entry.operationId];
  return `${options.namePrefix ?? ""}${(curated && curated.name) || entry.operationId}`;
}

function requestContext(loaded: LoadedSpec, options: OpenApiToolsOptions): RequestContext {
  return loaded.sourceUrl ? { spec: loaded.spec, options, sourceUrl: loaded.sourceUrl } : { spec: loaded.spec, options };
}

function makeTool(plan: OperationPlan, name: string, rc: RequestContext): OpenApiTool {
  const { method } = plan.entry;
  const curated = rc.options.operations?.[plan.entry.operationId];
  return createTool<OpenApiToolArgs, HttpToolResult>({
    name,
    description: describe(plan.entry, curated || undefined),
    sideEffect: method !== "get",
    idempotent: method === "get" || method === "put" || method === "delete",
    jsonSchema: () => plan.inputSchema,
    schema: () => z.fromJSONSchema(plan.inputSchema as z.core.JSONSchema.JSONSchema) as unknown as z.ZodType<unknown, OpenApiToolArgs>,
    run(args: OpenApiToolArgs, ctx) {
      const request = buildRequest(plan, args, rc);
      return sendHttp({
        toolName: name,
        ...request,
        timeoutMs: ctx.timeoutMs,
        maxOutputBytes: ctx.maxOutputBytes,
        fetch: rc.options.fetch ?? globalThis.fetch.bind(globalThis),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    },
  });
}

/** Curated description, else summary and description, else `METHOD /path`; plus notes. */
function describe(entry: OperationEntry, curated: OpenApiCuratedOperation | undefined): string {
  const own = [entry.summary, typeof entry.operation.description === "string" ? entry.operation.description : ""].filter((t, i, all) => t.trim() !== "" && all.indexOf(t) === i);
  let text = curated?.description ?? (own.join("\n\n") || `${entry.method.toUpperCase()} ${entry.path}`);
  if (entry.operation.deprecated) text += "\n\nDeprecated: prefer another operation if one fits.";
  const examples = curated?.responseExamples ?? [];
  if (examples.length > 0) {
    text += "\n\nExample responses:";
    for (const ex of examples) text += `\n- ${[ex.status, ex.description].filter((v) => v !== undefined && v !== "").join(" ") || "response"}: ${JSON.stringify(ex.value)}`;
  }
  return text;
}

function warnSkipped(skipped: OpenApiSkippedOperation[]): void {
  console.warn(`[flow] ${skipped.length} OpenAPI operation(s) were left out because Flow cannot call them: ${skipped.map((s) => `${s.operationId} (${s.method.toUpperCase()} ${s.path})`).join(", ")}. Pass onSkip to see why.`);
}
