/**
 * @module core/tools/openapi-types
 * Types of the OpenAPI tools (SPEC.md "OpenAPI tools"). The spec object types list the fields
 * Flow reads; real descriptions carry many more, which are kept and ignored.
 */

/**
 * SPEC.md `OpenApiSpec` (OpenAPI 3.0 or 3.1).
 * @example
 * const spec: OpenApiSpec = { openapi: "3.0.3", info: { title: "Pets", version: "1" }, paths: {} };
 */
export interface OpenApiSpec {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: OpenApiServer[];
  paths?: Record<string, OpenApiPathItem>;
  components?: { schemas?: Record<string, OpenApiSchema>; parameters?: Record<string, OpenApiParameter>; requestBodies?: Record<string, OpenApiRequestBody>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface OpenApiServer {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

/**
 * The methods Flow makes tools for (SPEC.md).
 * @example
 * OPENAPI_METHODS; // ["get", "post", "put", "delete", "patch"]
 */
export const OPENAPI_METHODS = ["get", "post", "put", "delete", "patch"] as const;
/**
 * One of `OPENAPI_METHODS`.
 * @example
 * const method: OpenApiMethod = "get";
 */
export type OpenApiMethod = (typeof OPENAPI_METHODS)[number];

export type OpenApiPathItem = { [M in OpenApiMethod]?: OpenApiOperation } & {
  $ref?: string;
  parameters?: Array<OpenApiParameter | OpenApiRef>;
  servers?: OpenApiServer[];
  summary?: string;
  description?: string;
  [key: string]: unknown;
};

/**
 * An operation object of a path item.
 * @example
 * const op: OpenApiOperation = { operationId: "getPet", summary: "Get a pet", parameters: [{ name: "id", in: "path", required: true }] };
 */
export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Array<OpenApiParameter | OpenApiRef>;
  requestBody?: OpenApiRequestBody | OpenApiRef;
  responses?: Record<string, unknown>;
  tags?: string[];
  deprecated?: boolean;
  servers?: OpenApiServer[];
  [key: string]: unknown;
}

/**
 * A parameter object.
 * @example
 * const p: OpenApiParameter = { name: "limit", in: "query", schema: { type: "integer" } };
 */
export interface OpenApiParameter {
  name: string;
  in: "query" | "header" | "path" | "cookie";
  description?: string;
  required?: boolean;
  schema?: OpenApiSchema;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  content?: Record<string, { schema?: OpenApiSchema }>;
  [key: string]: unknown;
}

export interface OpenApiRequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, { schema?: OpenApiSchema; [key: string]: unknown }>;
}

export interface OpenApiRef {
  $ref: string;
}

/** A schema object (OpenAPI 3.0 dialect, or JSON Schema 2020-12 in 3.1). */
export type OpenApiSchema = Record<string, unknown>;

/**
 * SPEC.md `OpenApiAuth`.
 * @example
 * const auth: OpenApiAuth = { type: "apiKey", in: "header", name: "X-Api-Key", value: key };
 */
export type OpenApiAuth =
  | { type: "apiKey"; name: string; value: string; in: "header" | "query" }
  | { type: "bearer"; token: string }
  | { type: "basic"; username: string; password: string };

/**
 * One curated operation (SPEC.md `OpenApiToolsOptions.operations`).
 * @example
 * const curated: OpenApiCuratedOperation = { name: "find_pet", description: "Look up one pet by id." };
 */
export interface OpenApiCuratedOperation {
  /** `false` leaves the operation out; `true` takes it in even when `include` does not list it. */
  include?: boolean;
  /** Tool name (key of the map) instead of the operationId. */
  name?: string;
  /** Replaces the summary/description taken from the spec. */
  description?: string;
  /** Appended to the description so the model knows what comes back. */
  responseExamples?: Array<{ status?: number | string; description?: string; value: unknown }>;
}

/**
 * SPEC.md `OpenApiToolsOptions`, plus where to read files and URLs from.
 * @example
 * const options: OpenApiToolsOptions = { include: ["getPet"], auth: { type: "bearer", token }, namePrefix: "pets_" };
 */
export interface OpenApiToolsOptions {
  /** Default: the first `servers[].url`, variables filled from their defaults. */
  baseUrl?: string;
  /** Sent with every request. */
  headers?: Record<string, string>;
  auth?: OpenApiAuth;
  /** Allowlist of operation ids. */
  include?: string[];
  /** Blocklist of operation ids; wins over `include`. */
  exclude?: string[];
  /** Prefix of every tool name; filtering still uses the original operation ids. */
  namePrefix?: string;
  operations?: Record<string, false | OpenApiCuratedOperation>;
  /** The `fetch` for calls (and, in async forms, for URL inputs). Default: the global one. */
  fetch?: typeof fetch;
  /** Reads a spec given as a file path (async forms). The Node entry supplies one. */
  readFile?: (path: string) => Promise<string>;
  /** Reads a spec given as a file path (sync forms). The Node entry supplies one. */
  readFileSync?: (path: string) => string;
  /** Local files (the description and its `$ref`s) must be inside this directory too (a run's `rootDir`). */
  rootDir?: string;
  /** Operations skipped by the bulk forms because Flow cannot call them (default: `console.warn`). */
  onSkip?: (skipped: OpenApiSkippedOperation[]) => void;
}

/**
 * Where the spec comes from: read options of `loadOpenApiSpec`/`listOperations`.
 * @example
 * const read: OpenApiReadOptions = { readFileSync: (p) => fs.readFileSync(p, "utf8") };
 */
export type OpenApiReadOptions = Pick<OpenApiToolsOptions, "fetch" | "readFile" | "readFileSync" | "rootDir">;

/**
 * An operation the bulk forms left out, and why.
 * @example
 * createOpenApiToolsSync(spec, { onSkip: (skipped: OpenApiSkippedOperation[]) => console.log(skipped.map((s) => s.reason)) });
 */
export interface OpenApiSkippedOperation {
  operationId: string;
  method: OpenApiMethod;
  path: string;
  reason: string;
}

/**
 * What `listOperations` returns per operation.
 * @example
 * const op: OpenApiOperationInfo = { operationId: "getPet", method: "get", path: "/pets/{id}", summary: "" };
 */
export interface OpenApiOperationInfo {
  operationId: string;
  method: OpenApiMethod;
  path: string;
  /** Empty string when the operation has none. */
  summary: string;
}

/**
 * A parsed spec object, a file path, raw JSON or YAML text, or (async forms) an http(s) URL.
 * @example
 * const input: OpenApiInput = "https://api.example.com/openapi.json";
 */
export type OpenApiInput = OpenApiSpec | Record<string, unknown> | string;
