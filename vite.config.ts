/**
 * Vite/Vitest configuration. The package imports itself by name (`durable-flow`,
 * `durable-flow/jsx-runtime`, ...) as users do; the aliases below map those names to the
 * sources listed in package.json `exports` (the `durable-flow-source` condition of each subpath;
 * the other conditions point at the built `dist/`, docs/package.md), so tests run against the
 * real entry points.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { exports: Record<string, string | Record<string, string>> };
const sourceOf = (target: string | Record<string, string>) => (typeof target === "string" ? target : target["durable-flow-source"]);
const selfAliases = Object.entries(pkg.exports)
  .filter(([sub]) => sub !== "./package.json")
  .map(([sub, target]) => ({ find: new RegExp(`^durable-flow${sub === "." ? "" : sub.slice(1)}$`), replacement: `${root}${sourceOf(target)!.slice(2)}` }));

export default defineConfig({
  resolve: { alias: selfAliases },
  oxc: { jsx: { runtime: "automatic", importSource: "durable-flow" } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Tests run inside this repository: no time-travel snapshots of it unless a test injects a
    // VCS port on a repository of its own (node/time-travel/*.test.tsx).
    env: { FLOW_SNAPSHOTS: "off" },
    // Temporary files of the whole run under one directory, removed at its end.
    globalSetup: ["node/testing/suite-tmp.ts"],
    // Closes what test helpers keep open for a whole file (the shared PGlite instance).
    setupFiles: ["node/testing/after-file.ts"],
    // Most files wait on processes, sockets, PostgreSQL and disks more than on the CPU, so two
    // run at once (Vitest's default on 2 cores is one: the suite took 24 minutes). The browser
    // files drive Chromium, which wants both cores: they run after the rest, one at a time.
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          include: ["core/**/*.test.{ts,tsx}", "node/**/*.test.{ts,tsx}", "examples/**/*.test.{ts,tsx}", "browser/**/*.test.{ts,tsx}", "sync/**/*.test.{ts,tsx}", "ui/**/*.test.{ts,tsx}"],
          maxWorkers: 2,
          // Each worker runs its files one after another in one module graph instead of a fresh
          // one per file: the files' imports took 225 s of the suite, 29 s this way. So a file
          // restores what it changes in the process (node/testing/process-state.ts checks the
          // working directory and environment), and its state must not depend on which files ran
          // before it; shuffled runs showed none does (docs/performance.md).
          isolate: false,
          // Added to the shared setup file: fails a file that leaves the working directory or
          // environment changed (the next file in its worker would run in it).
          setupFiles: ["node/testing/process-state.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "browser", include: ["e2e/**/*.test.{ts,tsx}"], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
