import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// No import cycles between modules (docs/architecture.md "No cycles"). A cycle makes the
// order in which modules are evaluated depend on which one is imported first, and a lazy
// `import()` only hides it. Checked here on the sources, beside core/seams.test.ts: every
// static and dynamic relative import of core/, node/, sync/, browser/ and ui/ is an edge,
// except `import type` and `export type ... from` (erased). Under verbatimModuleSyntax an
// `import { type A }` is kept as `import {}`, so it loads the module and counts.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const AREAS = ["core", "node", "sync", "browser", "ui"];

/** Source files; tests are left out (nothing imports a test, so none closes a cycle). */
function sources(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(sources(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.(test(-d)?|d)\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

const STATEMENT = /(?:^|\n)[ \t]*(import|export)\b(\s+type\b)?[^;]*?\bfrom\s*["'](\.[^"']+)["']|(?:^|\n)[ \t]*import\s*["'](\.[^"']+)["']|\bimport\(\s*["'](\.[^"']+)["']\s*\)/g;

/** The relative imports of a file that load a module when it runs (static and dynamic). */
function runtimeImports(file: string): string[] {
  // Block comments and whole-line comments go first: module headers show imports in examples.
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^[ \t]*\/\/.*$/gm, "");
  return [...text.matchAll(STATEMENT)].filter((m) => !m[2]).map((m) => (m[3] ?? m[4] ?? m[5])!);
}

function resolve(from: string, spec: string): string | undefined {
  const base = join(from, "..", spec).replace(/\.jsx?$/, "");
  return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")].find((p) => existsSync(p));
}

/** Each file's runtime imports of other source files, by path from the root. */
function moduleGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = runtimeImports(file).map((spec) => resolve(file, spec));
    graph.set(
      relative(ROOT, file),
      targets.filter((t): t is string => t !== undefined).map((t) => relative(ROOT, t)),
    );
  }
  return graph;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out;
}

/** One shortest cycle through the first module of a component, as `a -> b -> a`. */
function cycleThrough(graph: Map<string, string[]>, component: string[]): string {
  const inside = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start].join(" -> ");
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(", ");
}

describe("module graph", () => {
  it("finds a cycle, hidden behind import() or not, and names its modules", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(cyclesOf(g).map((c) => cycleThrough(g, c)).sort()).toEqual(["a -> b -> c -> a", "e -> e"]);
    expect(cyclesOf(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
  });

  it(`has no import cycle in ${AREAS.join(", ")}`, () => {
    const graph = moduleGraph(AREAS.flatMap((area) => sources(join(ROOT, area))));
    expect(graph.size).toBeGreaterThan(500);
    expect(cyclesOf(graph).map((c) => `${cycleThrough(graph, c)} (${c.length} modules)`)).toEqual([]);
  });
});
