import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Rolldown } from "vite";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NODE_ONLY = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`), "better-sqlite3", "pg", "ws"]);

const EMPTY = "\0flow-browser-empty";

function browserMapsAway(importer: string, source: string): boolean {
  for (let dir = dirname(importer); dir !== dirname(dir); dir = dirname(dir)) {
    const pkgPath = join(dir, "package.json");
    if (!existsSync(pkgPath)) continue;
    const browser = (JSON.parse(readFileSync(pkgPath, "utf8")) as { browser?: unknown }).browser;
    return typeof browser === "object" && browser !== null && (browser as Record<string, unknown>)[source] === false;
  }
  return false;
}

describe("durable-flow/core", () => {
  it("bundles for the browser without any Node built-in or Node-only package", async () => {
    const imported: string[] = [];
    const result = await build({
      root: ROOT,
      configFile: false,
      logLevel: "silent",
      build: {
        write: false,
        minify: false,
        lib: { entry: `${ROOT}core/index.ts`, formats: ["es"], fileName: "core" },
        rollupOptions: { external: [] },
      },
      resolve: { conditions: ["browser", "import", "module", "default"] },
      plugins: [
        {
          name: "forbid-node",
          enforce: "pre",
          resolveId(source, importer) {
            if (NODE_ONLY.has(source) || source.startsWith("node:")) {
              // A dependency whose package.json maps the module away for browsers ("browser":
              // { "fs": false }) ships its own browser path: that is what a browser build uses.
              if (importer && browserMapsAway(importer, source)) return EMPTY;
              imported.push(source);
              throw new Error(`core imports the Node-only module "${source}" (from ${importer ?? "?"})`);
            }
            return null;
          },
          load(id) {
            return id === EMPTY ? "export default {};" : null;
          },
        },
      ],
    });
    expect(imported).toEqual([]);
    const output = (Array.isArray(result) ? result[0] : result) as Rolldown.RolldownOutput;
    const code = output.output.map((o) => ("code" in o ? o.code : "")).join("\n");
    expect(code).toContain("runWorkflow");
    expect(code).not.toMatch(/from ["']node:/);
  }, 120_000);
});
