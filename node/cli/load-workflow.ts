/**
 * @module node/cli/load-workflow
 * Loads a workflow file: its default export (or an export named `workflow`) must be a workflow
 * made by `flow(...)`. See docs/cli.md ("Where workflow files can live").
 *
 * Workflow files are ES modules (they import `durable-flow`, which is ESM only). Node decides a
 * `.ts`/`.tsx` file's module system from the nearest package.json, so in a folder whose
 * package.json says `"type": "commonjs"` (what `npm init -y` writes) or that has none, importing
 * it directly fails (ERR_REQUIRE_CYCLE_MODULE). There the file is bundled with esbuild into an
 * ES module beside it (npm packages and `durable-flow` stay external, so they resolve from the
 * same folder as before), imported, and the bundle removed: the same build hot reload uses
 * (node/hot/bundle.ts). A `.tsx`/`.jsx` file is bundled too where the tsconfig the `flow` command
 * compiles with (node/cli/workflow-tsconfig.ts) leaves it out (its `include`): tsx would compile it as
 * classic React JSX ("React is not defined" at the first render).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FileMatcher } from "get-tsconfig";
import type { FlowWorkflow } from "../../core/engine/index.js";
import { FlowError, isFlowError } from "../../core/errors.js";
import { bundleWorkflow } from "../hot/index.js";
import { workflowTsconfig } from "./workflow-tsconfig.js";

/** Counts loads, so each gets a module instance of its own. */
let loads = 0;
/** Which files the registered tsconfig applies to (`workflowTsconfig`), read once. */
let tsconfigFiles: { path: string; matches: FileMatcher } | undefined;

/**
 * Loads the workflow exported by `file` (relative to `cwd`). Each call evaluates the file anew,
 * so the caller owns the store the file opens and may close it (`flow up` does) without
 * breaking a later load in the same process.
 * Throws INVALID_ARGUMENT when the file is missing or exports no workflow, and
 * WORKFLOW_LOAD_FAILED when it does not compile (file:line:column: message) or throws.
 * @example
 * const { workflow, path } = await loadWorkflow("review.tsx", process.cwd());
 */
export async function loadWorkflow(file: string, cwd: string): Promise<{ workflow: FlowWorkflow; path: string }> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new FlowError("INVALID_ARGUMENT", `Workflow file ${path} does not exist. Check the path (relative to ${cwd}).`, { path });
  const mod = (await (loadsAsEsm(path) && (await jsxAsConfigured(path)) ? importFile(path) : importBundled(path))) as { default?: unknown; workflow?: unknown };
  const workflow = (mod.default ?? mod.workflow) as FlowWorkflow | undefined;
  if (!workflow || typeof workflow !== "object" || typeof workflow.build !== "function") {
    throw new FlowError("INVALID_ARGUMENT", `${path} must export default a workflow made with flow(...) (from createFlow), or export one named \`workflow\`.`, { path });
  }
  // A bundled file (esbuild) was defined in a bundle that is gone now: the file is its source.
  if (!workflow.sourcePath || !existsSync(workflow.sourcePath)) workflow.sourcePath = path;
  return { workflow, path };
}

/** Whether Node loads `path` as an ES module: `.mts`/`.mjs`, or a package.json with `"type": "module"` above it. */
function loadsAsEsm(path: string): boolean {
  const ext = extname(path);
  if (ext === ".mts" || ext === ".mjs") return true;
  if (ext === ".cts" || ext === ".cjs") return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, "utf8")) as { type?: unknown }).type === "module";
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Whether tsx compiles `path`'s JSX as its project says: a file without JSX, or one the
 * registered tsconfig applies to (one it leaves out, tsx compiles as classic React JSX).
 */
async function jsxAsConfigured(path: string): Promise<boolean> {
  const tsconfig = workflowTsconfig();
  if (!tsconfig || !/\.[jt]sx$/.test(path)) return true;
  if (tsconfigFiles?.path !== tsconfig) {
    // Loaded here: only a `flow` command that loads a JSX workflow file reads a tsconfig.
    const { createFilesMatcher, parseTsconfig } = await import("get-tsconfig");
    tsconfigFiles = { path: tsconfig, matches: createFilesMatcher({ path: tsconfig, config: parseTsconfig(tsconfig) }) };
  }
  return tsconfigFiles.matches(path) !== undefined;
}

/** Imports `file`; a failure is reported as a failure of the workflow file `path`. */
async function importFile(file: string, path = file): Promise<unknown> {
  try {
    return await import(`${pathToFileURL(file).href}?flow-load=${++loads}`);
  } catch (error) {
    throw loadFailure(path, error);
  }
}

async function importBundled(path: string): Promise<unknown> {
  const outFile = join(dirname(path), `.${basename(path)}.flow-${process.pid}.mjs`);
  try {
    writeFileSync(outFile, (await bundleWorkflow(path, { rootDir: dirname(path), outFile, token: "flow-cli-load" })).code);
  } catch (error) {
    throw loadFailure(path, error);
  }
  try {
    return await importFile(outFile, path);
  } finally {
    rmSync(outFile, { force: true });
  }
}

/**
 * WORKFLOW_LOAD_FAILED for a file that does not compile or throws while loading. Compile errors
 * are reported as esbuild locates them (`file:line:column: message`), without its stack.
 */
function loadFailure(path: string, error: unknown): FlowError {
  if (isFlowError(error) && error.code !== "HOT_RELOAD_FAILED") return error;
  const compileErrors = isFlowError(error) ? ((error.details?.errors as string[] | undefined) ?? []) : transformErrors(error);
  if (compileErrors.length) {
    return new FlowError("WORKFLOW_LOAD_FAILED", `${compileErrors.join("; ")} (${path} does not compile; fix it and run again).`, { path, errors: compileErrors }, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FlowError("WORKFLOW_LOAD_FAILED", `Loading ${path} threw: ${message.split("\n")[0]} (run again with --verbose for the stack).`, { path }, { cause: error });
}

/** The `file:line:column: message` lines of an esbuild TransformError (what tsx throws for a syntax error). */
function transformErrors(error: unknown): string[] {
  if (!(error instanceof Error) || error.name !== "TransformError") return [];
  return error.message
    .split("\n")
    .slice(1)
    .map((l) => l.replace(/: ERROR: /, ": ").trim())
    .filter(Boolean);
}
