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

/**
 * An area is a folder under core/, node/ or browser/ (core/engine, node/server, browser/worker),
 * or sync/ or ui/ whole; a file at the top of core/, node/ or browser/ (core/errors.ts,
 * node/create-flow.ts) is an area of one file. An area's `index.ts` is its front door; sync/
 * has a second, `server.ts`: what a Gateway needs, without the browser's collections. A
 * subfolder's `index.ts` is a door too, for a part loaded on its own (node/agents/testing: the
 * testing kit, which the entry must not load). An area of core/ whose front door is published
 * whole (core/engine, core/api, core/time-travel: durable-flow/core re-exports them with
 * `export *`) has a second door, `internal.ts`, for the names Flow's other areas take that are
 * not published.
 */
function areaOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "sync" || parts[0] === "ui") return parts[0];
  return parts.length === 2 ? path : `${parts[0]}/${parts[1]}`;
}

/**
 * Imports that cross areas without the front door, each with its reason. The list only
 * shrinks: the test also fails on an entry no longer needed.
 */
const PAST_THE_DOOR: Record<string, string> = {};

/** The internal doors (see `areaOf`). */
const INTERNAL_DOORS = ["core/engine/internal.js", "core/api/internal.js", "core/time-travel/internal.js"];

/** The published entries (package.json "exports"): they never take a name from an internal door. */
const ENTRIES = ["core/index.ts", "core/client/index.ts", "core/data/index.ts", "core/jsx/jsx-runtime.ts", "sync/index.ts", "node/index.ts", "node/testing/index.ts"];

/** The names a door exports (`export { a, type B } from`, `export type { C } from`). */
function namesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!)
      .filter(Boolean),
  );
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

  it("areas import each other through their index.ts (front doors)", () => {
    const crossings: string[] = [];
    for (const area of Object.keys(ALLOWED)) {
      for (const file of sources(join(ROOT, area))) {
        const from = relative(ROOT, file);
        for (const spec of importsOf(file)) {
          if (!spec.startsWith(".")) continue;
          const target = relative(ROOT, join(file, "..", spec));
          const targetArea = areaOf(target.replace(/\.js$/, ".ts"));
          const isDoor = targetArea.endsWith(".ts") || (target.startsWith(`${targetArea}/`) && target.endsWith("/index.js")) || target === "sync/server.js" || INTERNAL_DOORS.includes(target);
          if (targetArea !== areaOf(from) && !isDoor) crossings.push(`${from} -> ${spec}`);
        }
      }
    }
    expect(crossings.filter((crossing) => !(crossing in PAST_THE_DOOR))).toEqual([]);
    expect(Object.keys(PAST_THE_DOOR).filter((allowed) => !crossings.includes(allowed))).toEqual([]);
  });

  it("publishes the front doors of core/engine, core/api and core/time-travel whole, and no published entry opens an internal door", () => {
    const core = readFileSync(join(ROOT, "core/index.ts"), "utf8");
    for (const door of INTERNAL_DOORS) {
      const front = door.replace(/internal\.js$/, "index.js");
      expect(core, front).toContain(`export * from "./${front.slice("core/".length)}";`);
      // No name at both doors: what is published is at the front door alone.
      const internal = namesOf(door.replace(/\.js$/, ".ts"));
      expect(internal.length, door).toBeGreaterThan(0);
      expect(internal.filter((name) => namesOf(front.replace(/\.js$/, ".ts")).includes(name)), door).toEqual([]);
    }
    const opened = ENTRIES.flatMap((entry) =>
      importsOf(join(ROOT, entry))
        .filter((spec) => spec.startsWith(".") && INTERNAL_DOORS.includes(relative(ROOT, join(ROOT, entry, "..", spec))))
        .map((spec) => `${entry} -> ${spec}`),
    );
    expect(opened).toEqual([]);
  });
});
