/**
 * @module core/tools/openapi-load
 * Turns the `input` of the OpenAPI functions into a spec object (docs/tools.md "OpenAPI
 * input"): a parsed object as is; a string that is an http(s) URL (async forms only), JSON text
 * (starts with `{`), YAML text (has a line break, or starts with `openapi:`/`swagger:`), or else
 * a file path read through the injected reader (core has no file system). References to other
 * files or URLs are bundled into the document by json-schema-ref-parser in the async forms; the
 * sync forms refuse them; local ones only inside the description's directory (and `rootDir`),
 * openapi-ref-scope.ts. Internal references stay `$ref`s and are resolved during conversion.
 * yaml and json-schema-ref-parser load when a description first needs them (docs/package.md).
 */
import type { FileInfo } from "@apidevtools/json-schema-ref-parser";
import { FlowError } from "../errors.js";
import { lazyPackage } from "../util/index.js";
import { assertRefInScope, isWithin } from "./openapi-ref-scope.js";
import type { OpenApiInput, OpenApiReadOptions, OpenApiSpec } from "./openapi-types.js";

const yaml = lazyPackage<typeof import("yaml")>(import.meta, "yaml", () => import("yaml"));

type Source = { kind: "object"; spec: Record<string, unknown> } | { kind: "text"; text: string } | { kind: "path"; path: string } | { kind: "url"; url: string };

/** A loaded description and where relative references resolve from. */
export interface LoadedSpec {
  spec: OpenApiSpec;
  /** The URL it was fetched from, when it was (relative server URLs resolve against it). */
  sourceUrl?: string;
}

/** Loads without I/O other than `readFileSync`: never fetches, refuses external references. */
export function loadOpenApiSpecSync(input: OpenApiInput, options: OpenApiReadOptions = {}): LoadedSpec {
  const source = classify(input);
  if (source.kind === "url") {
    throw new FlowError("OPENAPI_UNSUPPORTED", `The sync OpenAPI functions never fetch URLs (${source.url}). Use createOpenApiTools / createOpenApiTool / loadOpenApiSpec, which are async.`, { url: source.url });
  }
  let doc: unknown;
  if (source.kind === "object") doc = source.spec;
  else if (source.kind === "text") doc = parseText(source.text, "the given text");
  else {
    if (!options.readFileSync) throw noReader(source.path);
    let text: string;
    try {
      text = options.readFileSync(source.path);
    } catch (cause) {
      throw readError(source.path, cause);
    }
    doc = parseText(text, source.path);
  }
  const spec = assertOpenApi3(doc);
  const external = firstExternalRef(spec);
  if (external !== undefined) {
    throw new FlowError("OPENAPI_UNSUPPORTED", `The OpenAPI description references another document (${external}); the sync forms cannot load it. Use the async createOpenApiTools / createOpenApiTool.`, { ref: external });
  }
  return { spec };
}

/**
 * Loads an OpenAPI 3.x description from any supported input, fetching URLs and bundling
 * references to other files or URLs into one document.
 * @example
 * const spec = await loadOpenApiSpec("https://api.example.com/openapi.yaml");
 * console.log(listOperations(spec).length);
 */
export async function loadOpenApiSpec(input: OpenApiInput, options: OpenApiReadOptions = {}): Promise<OpenApiSpec> {
  return (await loadOpenApiSource(input, options)).spec;
}

/** As `loadOpenApiSpec`, also saying where the description came from. */
export async function loadOpenApiSource(input: OpenApiInput, options: OpenApiReadOptions = {}): Promise<LoadedSpec> {
  const source = classify(input);
  const read = async (location: string): Promise<string> => {
    if (/^https?:\/\//i.test(location)) return fetchText(location, options.fetch);
    if (!options.readFile && !options.readFileSync) throw noReader(location);
    try {
      return options.readFile ? await options.readFile(location) : options.readFileSync!(location);
    } catch (cause) {
      throw readError(location, cause);
    }
  };
  let doc: unknown;
  let base: string | undefined;
  if (source.kind === "object") doc = source.spec;
  else if (source.kind === "text") doc = parseText(source.text, "the given text");
  else {
    base = source.kind === "url" ? source.url : source.path;
    if (source.kind === "path" && options.rootDir !== undefined && !isWithin(options.rootDir.replace(/\/+$/, "") || "/", source.path)) {
      throw new FlowError("OPENAPI_INVALID", `The OpenAPI description ${source.path} is outside rootDir ${options.rootDir}. Put it inside the workspace.`, { path: source.path, rootDir: options.rootDir });
    }
    doc = parseText(await read(base), base);
  }
  let spec = assertOpenApi3(doc);
  const readRef = (location: string) => {
    assertRefInScope(location, base, options.rootDir);
    return read(location);
  };
  if (firstExternalRef(spec) !== undefined) spec = await bundleExternal(spec, base, readRef);
  return source.kind === "url" ? { spec, sourceUrl: source.url } : { spec };
}

/** The `$ref` of the first reference to another document, if any. */
function firstExternalRef(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === "object") {
      const ref = (v as { $ref?: unknown }).$ref;
      if (typeof ref === "string" && !ref.startsWith("#")) return ref;
      for (const child of Object.values(v)) if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return undefined;
}

async function bundleExternal(spec: OpenApiSpec, base: string | undefined, read: (location: string) => Promise<string>): Promise<OpenApiSpec> {
  try {
    const options = {
      mutateInputSchema: false,
      resolve: {
        file: false,
        http: false,
        external: true,
        flow: { order: 1, canRead: true, read: (file: FileInfo) => read(/^https?:/i.test(file.url) ? file.url : decodeURIComponent(file.url)) },
      },
      parse: {
        json: false,
        yaml: false,
        text: false,
        binary: false,
        flow: { order: 1, canParse: true, parse: (file: FileInfo) => parseText(typeof file.data === "string" ? file.data : new TextDecoder().decode(file.data as Uint8Array), file.url) },
      },
    };
    const { default: $RefParser } = await import("@apidevtools/json-schema-ref-parser");
    const bundled = base === undefined ? await $RefParser.bundle(spec, options as never) : await $RefParser.bundle(base, spec, options as never);
    return bundled as unknown as OpenApiSpec;
  } catch (cause) {
    if (cause instanceof FlowError) throw cause;
    throw new FlowError("OPENAPI_INVALID", `Could not resolve a reference of the OpenAPI description${base ? ` ${base}` : ""}: ${(cause as Error).message}`, {}, { cause });
  }
}

function classify(input: OpenApiInput): Source {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return { kind: "object", spec: input as Record<string, unknown> };
  if (typeof input !== "string" || input.trim() === "") {
    throw new FlowError("OPENAPI_INVALID", "An OpenAPI input must be a spec object, a file path, JSON or YAML text, or an http(s) URL.");
  }
  const text = input.trim();
  if (/^https?:\/\/\S+$/i.test(text)) return { kind: "url", url: text };
  if (text.startsWith("{") || text.includes("\n") || /^(openapi|swagger)\s*:/.test(text)) return { kind: "text", text: input };
  return { kind: "path", path: text.startsWith("file://") ? decodeURIComponent(new URL(text).pathname) : text };
}

function parseText(text: string, where: string): unknown {
  try {
    return text.trimStart().startsWith("{") ? JSON.parse(text) : yaml().parse(text, { maxAliasCount: -1 });
  } catch (cause) {
    throw new FlowError("OPENAPI_INVALID", `Could not parse the OpenAPI description (${where}) as JSON or YAML: ${(cause as Error).message}`, { source: where }, { cause });
  }
}

function assertOpenApi3(doc: unknown): OpenApiSpec {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new FlowError("OPENAPI_INVALID", "The OpenAPI description is not an object.");
  }
  const d = doc as Record<string, unknown>;
  if (typeof d.swagger === "string") {
    throw new FlowError("OPENAPI_UNSUPPORTED", `Swagger ${d.swagger} descriptions are not supported; Flow reads OpenAPI 3.0 and 3.1. Convert it first (for example with swagger2openapi).`, { swagger: d.swagger });
  }
  if (typeof d.openapi !== "string" || !/^3\.[01]\./.test(d.openapi)) {
    throw new FlowError("OPENAPI_INVALID", `Not an OpenAPI 3.0/3.1 description (its "openapi" field is ${JSON.stringify(d.openapi)}).`, { openapi: d.openapi });
  }
  if (d.paths !== undefined && (typeof d.paths !== "object" || d.paths === null)) {
    throw new FlowError("OPENAPI_INVALID", 'The OpenAPI description\'s "paths" is not an object.');
  }
  return d as OpenApiSpec;
}

async function fetchText(url: string, doFetch: typeof fetch = globalThis.fetch.bind(globalThis)): Promise<string> {
  let response: Response;
  try {
    response = await doFetch(url, { headers: { accept: "application/json, application/yaml, text/yaml, */*" } });
  } catch (cause) {
    throw new FlowError("OPENAPI_INVALID", `Could not fetch the OpenAPI description ${url}: ${(cause as Error).message}`, { url }, { cause });
  }
  if (!response.ok) throw new FlowError("OPENAPI_INVALID", `Fetching the OpenAPI description ${url} answered ${response.status} ${response.statusText}.`, { url, status: response.status });
  return await response.text();
}

function readError(path: string, cause: unknown): FlowError {
  return new FlowError("OPENAPI_INVALID", `Could not read the OpenAPI description ${path}: ${(cause as Error)?.message ?? cause}`, { path }, { cause });
}

function noReader(path: string): FlowError {
  return new FlowError("OPENAPI_INVALID", `"${path}" looks like a file path, but no file reader was given. Import the OpenAPI functions from "durable-flow" (Node), or pass readFile/readFileSync.`, { path });
}
