#!/usr/bin/env node
// The `flow` command. Workflows are TypeScript/JSX files, so commands that load one run under
// tsx's loader. A project's own tsconfig.json decides how they compile; without one, Flow's
// defaults apply (JSX from durable-flow), so `flow up workflow.tsx` works in a bare directory.
// Commands that only read the store (`flow runs`, `flow --version`, ...) start without the
// loader, unless given `--workflow <file>` (docs/package.md "What loads when").
//
// The same file runs in two places (docs/package.md): in the built package (`dist/node/cli/`,
// beside the compiled `main.js`) and in Flow's repository (beside `main.ts`), where the
// `durable-flow-source` export condition makes `durable-flow` imports resolve to the sources.
import { existsSync } from "node:fs";
import { register as registerHooks } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Commands that import no workflow file (unless `--workflow` names one). */
const WITHOUT_LOADER = new Set([undefined, "--version", "-v", "--help", "-h", "help", "runs", "memory", "approvals", "approve", "submit", "signal", "wake", "init", "timeline", "snapshots", "openapi"]);

function projectTsconfig(dir) {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "tsconfig.json"))) return join(d, "tsconfig.json");
    if (dirname(d) === d) return undefined;
  }
}

const argv = process.argv.slice(2);
const command = argv.find((a) => a !== "--verbose");
const fromSources = existsSync(fileURLToPath(new URL("./main.ts", import.meta.url)));
/** The tsconfig tsx compiles workflow files with, when this command loads them. */
let workflowTsconfig;
if (fromSources || !WITHOUT_LOADER.has(command) || argv.some((a) => a === "--workflow" || a.startsWith("--workflow="))) {
  const { register } = await import("tsx/esm/api");
  const tsconfig = projectTsconfig(process.cwd()) ?? fileURLToPath(new URL("./tsconfig.workflows.json", import.meta.url));
  register({ tsconfig });
  workflowTsconfig = tsconfig;
}
if (fromSources) {
  const addSourceCondition = `export function resolve(specifier, context, next) {
    return next(specifier, { ...context, conditions: [...context.conditions, "durable-flow-source"] });
  }`;
  registerHooks(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
}
const cli = await import(fromSources ? "./main.ts" : "./main.js");
// The loader bundles, with Flow's JSX, the JSX files that tsconfig leaves out.
if (workflowTsconfig) cli.useWorkflowTsconfig(workflowTsconfig);
process.exitCode = await cli.main(argv);
// Every command closes what it opened, but PGlite's wasm keeps internal timers (up to 10 s)
// after close(): once the output is flushed, nothing is left worth waiting for (issue 18).
for (const stream of [process.stdout, process.stderr]) {
  if (stream.writable && !stream.destroyed) await new Promise((resolve) => stream.write("", resolve));
}
setTimeout(() => process.exit(), 100).unref();
