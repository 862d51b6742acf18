/**
 * @module node/hot/bundle
 * Bundles an edited workflow file with esbuild for hot reload (docs/hot-reload.md): the file
 * and the local files it imports go into one ES module; `durable-flow` and every npm package
 * stay external, so the reloaded build runs against the same `durable-flow` module instance
 * (same components, same render context) as the running process. Imports of `durable-flow`
 * itself go through a small virtual module that routes the store factories to the hot-reload
 * context (./hot-context.ts), so the new build reuses the running run's store and schema
 * objects instead of opening a second store.
 */
import { existsSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Message, Plugin } from "esbuild";
import { FlowError } from "../../core/errors.js";
import { HOT_CONTEXTS_KEY } from "./hot-context.js";

/** What a bundle holds. */
export interface WorkflowBundle {
  /** The ES module's source. */
  code: string;
  /** Absolute paths of the local files bundled in (the workflow file first); never node_modules. */
  inputs: string[];
}

const SELF = "durable-flow";
const SHIM_NAMESPACE = "flow-hot";
const BUILTINS = new Set(builtinModules);

/**
 * Bundles `workflowPath` into an ES module written later as `outFile` (used for source maps).
 * Throws HOT_RELOAD_FAILED with esbuild's messages (file:line:column) when it does not compile.
 */
export async function bundleWorkflow(workflowPath: string, opts: { rootDir: string; outFile: string; token: string }): Promise<WorkflowBundle> {
  // Loaded on first use: processes that never hot-reload do not pay for esbuild.
  const { build } = await import("esbuild");
  let result;
  try {
    result = await build({
      entryPoints: [workflowPath],
      absWorkingDir: opts.rootDir,
      outfile: opts.outFile,
      bundle: true,
      write: false,
      metafile: true,
      absPaths: ["metafile"],
      format: "esm",
      platform: "node",
      target: "node20",
      jsx: "automatic",
      jsxImportSource: SELF,
      sourcemap: "inline",
      logLevel: "silent",
      plugins: [externals(opts.token)],
    });
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors ?? [];
    const text = messages.length ? messages.map(formatMessage).join("\n") : (error as Error).message;
    throw new FlowError("HOT_RELOAD_FAILED", `Hot reload: ${workflowPath} does not compile; the previous build keeps running.\n${text}`, { workflowPath, errors: messages.map(formatMessage) }, { cause: error });
  }
  const code = result.outputFiles?.find((f) => f.path.endsWith(".mjs") || f.path === opts.outFile)?.text ?? result.outputFiles?.[0]?.text ?? "";
  const inputs = Object.keys(result.metafile.inputs)
    .filter((p) => !p.includes(":") || isAbsolute(p))
    .map((p) => resolve(opts.rootDir, p))
    .filter((p) => !p.split(/[\\/]/).includes("node_modules"));
  const entry = resolve(opts.rootDir, workflowPath);
  return { code, inputs: [entry, ...inputs.filter((p) => p !== entry)] };
}

/**
 * Keeps npm packages, Node built-ins and `durable-flow/*` external, and serves imports of
 * `durable-flow` from the shim. A bare specifier is a package when some `node_modules/<name>`
 * above the importer holds it; anything else (a tsconfig `paths` alias) is left to esbuild.
 */
function externals(token: string): Plugin {
  return {
    name: "flow-hot-externals",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isAbsolute(args.path)) return undefined;
        if (args.path === SELF) return args.namespace === SHIM_NAMESPACE ? { path: SELF, external: true } : { path: SELF, namespace: SHIM_NAMESPACE };
        if (args.path.startsWith(`${SELF}/`) || args.path.startsWith("node:") || BUILTINS.has(args.path)) return { path: args.path, external: true };
        const name = packageName(args.path);
        return hasPackage(args.resolveDir, name) ? { path: args.path, external: true } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: SHIM_NAMESPACE }, () => ({ contents: shimSource(token), loader: "js" }));
    },
  };
}

/**
 * The virtual `durable-flow` the bundle imports: everything from the real one, with the store
 * factories routed through the hot-reload context registered under `token` (when there is one).
 */
function shimSource(token: string): string {
  const ctx = `globalThis[Symbol.for(${JSON.stringify(HOT_CONTEXTS_KEY)})]?.get(${JSON.stringify(token)})`;
  const route = (name: string, async: boolean) =>
    `export ${async ? "async " : ""}function ${name}(schemas, opts) { const hot = ${ctx}; return hot ? hot.reuse(${JSON.stringify(name)}, schemas, opts, () => real.${name}(schemas, opts)) : real.${name}(schemas, opts); }`;
  return [
    `import * as real from "${SELF}";`,
    `export * from "${SELF}";`,
    route("createFlow", false),
    route("createFlowPostgres", true),
    route("openFlowBackend", true),
  ].join("\n");
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function hasPackage(fromDir: string, name: string): boolean {
  for (let dir = fromDir || process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", name))) return true;
    if (dirname(dir) === dir) return false;
  }
}

function formatMessage(m: Message): string {
  const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ` : "";
  return `${at}${m.text}`;
}
