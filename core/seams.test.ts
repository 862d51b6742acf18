import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// DESIGN.md "The shape of the code": which folder may import which. Checked here, on every
// import of every source file, so a crossed seam fails the suite rather than a review.
// `sync/` (team workspaces) is runtime-agnostic like `core/`; its Node half (txid capture on
// pg, the Gateway's team hooks) is node/sync/, which may import `sync/` as node/ does `core/`.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ALLOWED: Record<string, string[]> = {
  core: ["core"],
  node: ["core", "sync", "node"],
  browser: ["core", "browser"],
  sync: ["core", "sync"],
  ui: ["core", "sync", "browser", "ui"],
};
const RUNTIME_AGNOSTIC = new Set(["core", "sync"]);
const NODE_ONLY_PACKAGES = /^(node:|fs$|path$|os$|child_process$|better-sqlite3$|pg$|ws$|@electric-sql\/pglite\/nodefs)/;

function sources(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    // Test fixtures are test code (workflows the tests run), as the *.test.ts files are.
    if (statSync(path).isDirectory()) out = name === "fixtures" ? out : out.concat(sources(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test(-d)?\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]!);
}

describe("seams", () => {
  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`${area}/ imports only from ${allowed.join(", ")}${RUNTIME_AGNOSTIC.has(area) ? " and never a Node-only module" : ""}`, () => {
      const problems: string[] = [];
      const files = sources(join(ROOT, area));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        for (const spec of importsOf(file)) {
          if (spec.startsWith(".")) {
            const target = relative(ROOT, join(file, "..", spec)).split("/")[0]!;
            if (!allowed.includes(target)) problems.push(`${relative(ROOT, file)} -> ${spec}`);
          } else if (RUNTIME_AGNOSTIC.has(area) && NODE_ONLY_PACKAGES.test(spec)) {
            problems.push(`${relative(ROOT, file)} -> ${spec}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
