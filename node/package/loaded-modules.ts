/**
 * @module node/package/loaded-modules
 * What a plain `node` process loads (docs/package.md "What loads when"): runs an ES module
 * snippet in a child `node` (no TypeScript loader) with a module hook that records the URL of
 * every module the ES module loader loads, and reports them with the CommonJS modules
 * `require` loaded; `bundledSources` reads which of Flow's source modules the loaded files of
 * the built package hold. Used by bench/startup.ts and by the package tests; not shipped.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The modules a snippet loaded. */
export interface LoadedModules {
  /** URLs the ES module loader loaded (ES modules, and CommonJS modules imported from them). */
  esm: string[];
  /** Files `require` loaded (CommonJS modules required by other CommonJS modules). */
  cjs: string[];
  /** What the snippet printed on stdout. */
  stdout: string;
}

// The hooks run on the loader's own thread; they append each loaded URL to a file.
const HOOKS = `import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + "\\n"); return next(url, context); }`;

/**
 * Runs `code` (an ES module body) with `node --input-type=module` in `cwd` and lists what it loaded.
 * @example
 * const { esm } = loadedModules(`await import("durable-flow")`, projectDir);
 * esm.some((url) => url.includes("/node_modules/hono/")); // false
 */
export function loadedModules(code: string, cwd: string): LoadedModules {
  const dir = mkdtempSync(join(tmpdir(), "flow-modules-"));
  const file = join(dir, "esm.txt");
  const setup = `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)}, { data: { file: ${JSON.stringify(file)} } });`;
  const script = `${code}\nconst { createRequire } = await import("node:module");\nprocess.stdout.write("\\n" + JSON.stringify({ cjs: Object.keys(createRequire(import.meta.url).cache) }) + "\\n");`;
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_OPTIONS"));
    const child = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(setup)}`, "--input-type=module", "-e", script], { cwd, env, encoding: "utf8" });
    if (child.status !== 0) throw new Error(`node exited ${child.status}:\n${child.stdout}\n${child.stderr}`);
    const lines = child.stdout.trimEnd().split("\n");
    const { cjs } = JSON.parse(lines.pop()!) as { cjs: string[] };
    let esm: string[] = [];
    try {
      esm = [...new Set(readFileSync(file, "utf8").split("\n").filter(Boolean))];
    } catch {
      // nothing was loaded through the ES module loader
    }
    return { esm, cjs, stdout: lines.join("\n") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The packages among loaded module URLs or paths (`hono`, `@electric-sql/pglite`, ...).
 * @example
 * packagesOf(loadedModules(`await import("durable-flow")`, dir).esm); // ["better-sqlite3", "zod", ...]
 */
export function packagesOf(urls: string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const last = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1);
    if (last) names.add(last[1]!);
  }
  return [...names].sort();
}

/**
 * The source modules (`node/create-flow.ts`, ...) bundled into the loaded files of Flow's built
 * package (`/durable-flow/dist/` or a checkout's `dist/`), read from the `// <path>` line esbuild
 * writes before each module's code (scripts/build.ts bundles dist/ into chunks).
 * @example
 * bundledSources(loadedModules(`await import("durable-flow")`, dir).esm); // ["core/errors.ts", "node/create-flow.ts", ...]
 */
export function bundledSources(urls: string[]): string[] {
  const sources = new Set<string>();
  for (const url of urls) {
    if (!url.startsWith("file:") || !/\/dist\/(core|node|sync|chunks)\/.*\.js$/.test(url) || /\/node_modules\/(?!durable-flow\/)/.test(url)) continue;
    for (const m of readFileSync(new URL(url), "utf8").matchAll(/^\/\/ ((?:core|node|sync)\/\S+\.tsx?)$/gm)) sources.add(m[1]!);
  }
  return [...sources].sort();
}
