/**
 * @module core/tools/http-tool
 * `createHttpTool` (SPEC.md "Agents"): a generic REST tool over web-standard `fetch`, so it
 * runs in Node and in the browser. It is not gated by `allowNetwork` (that option governs
 * `bash`): giving an agent this tool is the decision to let it call HTTP (docs/tools.md "HTTP").
 */
import { z } from "zod";
import { createTool } from "./define-tool.js";
import { basicAuthorization, HTTP_METHODS, sendHttp, type HttpToolResult } from "./http-request.js";
import type { JsonSchema, Tool } from "./types.js";

/**
 * Options of `createHttpTool`.
 * @example
 * const options: HttpToolOptions = { description: "Call the billing API", defaultHeaders: { accept: "application/json" } };
 */
export interface HttpToolOptions {
  /** Default: a generic REST description. */
  description?: string;
  /** Sent with every request; a header of the same name in the call wins. */
  defaultHeaders?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

const DEFAULT_DESCRIPTION =
  "Make an HTTP request to a REST API. Give the full `url`, a `method` (default GET), optional `headers`, `query` parameters, a `body` (objects are sent as JSON) and `auth`. Returns the status, headers and the body (parsed when JSON).";

const queryValue = z.union([z.string(), z.number(), z.boolean(), z.null()]).optional();

const httpInput = z.object({
  url: z.url({ protocol: /^https?$/ }).describe("Absolute http(s) URL"),
  method: z.enum(HTTP_METHODS).default("GET"),
  headers: z.record(z.string(), z.string()).optional().describe("Request headers"),
  query: z.record(z.string(), queryValue).optional().describe("Query parameters added to the URL; null values are skipped"),
  body: z.unknown().optional().describe("Request body: objects are sent as JSON, strings as they are; ignored for GET and HEAD"),
  auth: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("bearer"), token: z.string() }),
      z.object({ type: z.literal("basic"), username: z.string(), password: z.string() }),
      z.object({ type: z.literal("header"), name: z.string().min(1), value: z.string() }),
    ])
    .optional(),
  timeoutMs: z.number().int().positive().optional().describe("Time limit of this request in ms"),
});

/**
 * The input of the HTTP tool.
 * @example
 * const input: HttpToolInput = { url: "https://api.example.com/items", method: "POST", body: { name: "x" } };
 */
export type HttpToolInput = z.input<typeof httpInput>;

/**
 * Creates the HTTP tool (`name` "http", `sideEffect` true, `idempotent` false).
 * @example
 * const http = createHttpTool({ defaultHeaders: { "user-agent": "my-agent" } });
 * const res = await http.execute({ url: "https://api.example.com/items", query: { page: 2 }, auth: { type: "bearer", token } });
 * if (res.ok) console.log(res.body);
 */
export function createHttpTool(options: HttpToolOptions = {}): Tool<HttpToolInput, HttpToolResult> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return createTool<HttpToolInput, HttpToolResult>({
    name: "http",
    description: options.description ?? DEFAULT_DESCRIPTION,
    sideEffect: true,
    idempotent: false,
    schema: () => httpInput,
    jsonSchema: () => z.toJSONSchema(httpInput, { io: "input", unrepresentable: "any" }) as JsonSchema,
    run(args: z.output<typeof httpInput>, ctx) {
      const url = new URL(args.url);
      for (const [name, value] of Object.entries(args.query ?? {})) {
        if (value !== null && value !== undefined) url.searchParams.append(name, String(value));
      }
      const headers = new Headers(options.defaultHeaders);
      for (const [name, value] of Object.entries(args.headers ?? {})) headers.set(name, value);
      const auth = args.auth;
      if (auth?.type === "bearer") headers.set("authorization", `Bearer ${auth.token}`);
      else if (auth?.type === "basic") headers.set("authorization", basicAuthorization(auth.username, auth.password));
      else if (auth?.type === "header") headers.set(auth.name, auth.value);
      return sendHttp({
        toolName: "http",
        url: url.toString(),
        method: args.method,
        headers,
        body: args.body,
        ...(auth?.type === "header" ? { credentialHeaders: [auth.name] } : {}),
        timeoutMs: args.timeoutMs ?? ctx.timeoutMs,
        maxOutputBytes: ctx.maxOutputBytes,
        fetch: doFetch,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    },
  });
}
