/**
 * Builds the published package into `dist/` (docs/package.md): ESM JavaScript bundled by
 * esbuild, and `.d.ts` declarations with tsc. Run by `npm run build` and by npm's `prepack`, so
 * `npm pack` always ships a fresh build.
 *
 * What to build is read from package.json: every `./dist/...` target named by `exports` (any
 * condition) and `bin` is bundled from the source file at the same path outside `dist/`. The CLI
 * is the one extra: its bin loads `main.js` dynamically (docs/package.md). The entries are
 * bundled together with code splitting (packages stay imports), so they share chunks
 * (`dist/chunks/`) instead of each carrying a copy, and what a lazy `import()` reaches stays in
 * chunks of its own (`dist/chunks/<module>-<hash>.js`), loaded when that `import()` runs. A plain
 * `node` then reads 17 files of Flow's for `import("durable-flow")` instead of one per source
 * module, about 330 (docs/performance.md "Start-up and install").
 *
 * The app (`dist/app/`, which the Gateway serves as its console) is built too, when its
 * sources changed (scripts/app-build.ts); cleaning `dist/` leaves it in place.
 *
 * @example
 * ```sh
 * npx tsx scripts/build.ts   # or: npm run build
 * ```
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ensureAppBuilt } from "./app-build.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");

/** Files the CLI's bin loads without a static import. */
const CLI_ENTRIES = ["node/cli/main.ts"];
/** Files copied as they are: the CLI's bin and what it reads at run time. */
const COPIES = ["node/cli/bin.mjs", "node/cli/tsconfig.workflows.json"];
/** Files a module finds with `new URL("./file", import.meta.url)`, by that module: bundled, its
 * code sits in whichever output holds it, so the file is copied beside that output. The one:
 * the script the testing kit's fake CLIs run (`durable-flow/testing`, node/agents/testing/fake-cli.ts). */
const BESIDE: Record<string, string> = { "node/agents/testing/fake-cli.mjs": "node/agents/testing/fake-cli.ts" };

interface PackageJson {
  exports: Record<string, unknown>;
  bin?: Record<string, string>;
}

/** Every `./dist/...` path named anywhere in `exports` and `bin`. */
export function distTargets(pkg: PackageJson): string[] {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") {
      if (value.startsWith("./dist/")) out.push(value.slice(2));
    } else if (value && typeof value === "object") for (const v of Object.values(value)) walk(v);
  };
  walk(pkg.exports);
  walk(pkg.bin ?? {});
  return [...new Set(out)];
}

/** The source file a `dist/**.js` target is compiled from. */
function sourceOf(target: string): string {
  const base = target.slice("dist/".length).replace(/\.js$/, "");
  for (const ext of [".ts", ".tsx"]) if (existsSync(join(ROOT, base + ext))) return base + ext;
  throw new Error(`package.json names ${target}, but neither ${base}.ts nor ${base}.tsx exists.`);
}

/**
 * `.d.ts` for the entries and everything they import, through a generated tsconfig that extends
 * tsconfig.build.json. tsc type-checks them too (a type error fails the build), unless
 * FLOW_BUILD_TYPECHECKED=1 says the sources were just checked (`npm test` runs `tsc --noEmit -p .`
 * over all of them first, and node/package/package.test.ts packs with it): `--noCheck` emits the
 * same declarations with half the CPU.
 */
function emitDeclarations(entries: string[]): void {
  const config = join(DIST, "tsconfig.types.json");
  writeFileSync(config, JSON.stringify({ extends: "../tsconfig.build.json", include: [], files: entries.map((e) => `../${e}`) }));
  const tsc = join(ROOT, "node_modules/.bin/tsc");
  const result = spawnSync(tsc, ["-p", config, ...(process.env.FLOW_BUILD_TYPECHECKED === "1" ? ["--noCheck"] : [])], { cwd: ROOT, encoding: "utf8" });
  rmSync(config);
  if (result.status !== 0) throw new Error(`tsc could not emit the declarations:\n${result.stdout}${result.stderr}`);
}

/** Empties `dist/` but for the app and its build's lock and work directories (scripts/app-build.ts). */
function cleanDist(): void {
  mkdirSync(DIST, { recursive: true });
  for (const name of readdirSync(DIST)) if (!/^(app($|\.)|\.app-build\.lock$)/.test(name)) rmSync(join(DIST, name), { recursive: true, force: true });
}

/** Builds `dist/`; resolves to the files it wrote (relative to the package root). */
export async function buildPackage(): Promise<string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
  const targets = distTargets(pkg);
  const entries = [...new Set([...targets.filter((t) => t.endsWith(".js")).map(sourceOf), ...CLI_ENTRIES])];
  cleanDist();

  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    bundle: true,
    splitting: true,
    packages: "external",
    outdir: "dist",
    outbase: ".",
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "neutral",
    target: "node20",
    metafile: true,
    logLevel: "error",
  });
  emitDeclarations(entries.filter((e) => !CLI_ENTRIES.includes(e)));
  // destination -> source, relative to the package root.
  const copies = new Map(COPIES.map((file) => [`dist/${file}`, file]));
  for (const [file, module] of Object.entries(BESIDE)) {
    for (const [output, { inputs }] of Object.entries(metafile.outputs)) if (module in inputs) copies.set(join(dirname(output), basename(file)), file);
  }
  for (const [copy, file] of copies) {
    mkdirSync(dirname(join(ROOT, copy)), { recursive: true });
    copyFileSync(join(ROOT, file), join(ROOT, copy));
  }

  await ensureAppBuilt();

  const missing = targets.filter((t) => !existsSync(join(ROOT, t)));
  if (missing.length) throw new Error(`The build did not produce ${missing.join(", ")}, which package.json names.`);
  return [...Object.keys(metafile.outputs), ...copies.keys()].map((f) => relative(ROOT, join(ROOT, f)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const files = await buildPackage();
  console.log(`dist/: ${files.length} bundles, chunks and copies, declarations beside them (${Math.round(performance.now() - started)} ms)`);
}
