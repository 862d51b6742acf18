#!/usr/bin/env node
// The `flow` command. Workflows are TypeScript/JSX files, so the CLI runs under tsx's loader.
// A project's own tsconfig.json decides how they compile; without one, Flow's defaults apply
// (JSX from durable-flow), so `flow up workflow.tsx` works in a bare directory.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

function projectTsconfig(dir) {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "tsconfig.json"))) return join(d, "tsconfig.json");
    if (dirname(d) === d) return undefined;
  }
}

register({ tsconfig: projectTsconfig(process.cwd()) ?? fileURLToPath(new URL("./tsconfig.workflows.json", import.meta.url)) });
const { main } = await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
