#!/usr/bin/env node
// The `flow` command. Workflows are TypeScript/JSX files, so the CLI runs under tsx's loader.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
