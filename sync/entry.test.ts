/**
 * `durable-flow/sync` is the one entry that loads Electric (DESIGN.md "sync/"): a local-only
 * user of `durable-flow/data` bundles no `@tanstack/electric-db-collection` nor
 * `@electric-sql/client`, and its `createCollections` sends a multiplayer mode to
 * `createTeamCollections` instead of loading them behind the user's back.
 */
import { fileURLToPath } from "node:url";
import { QueryClient } from "@tanstack/query-core";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { createCollections } from "durable-flow/data";
import { createTeamCollections } from "durable-flow/sync";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The packages a browser bundle of `entry` includes. */
async function bundledPackages(entry: string): Promise<string[]> {
  const { metafile } = await build({ entryPoints: [`${ROOT}${entry}`], bundle: true, write: false, metafile: true, platform: "browser", format: "esm", logLevel: "silent" });
  const names = Object.keys(metafile.inputs).flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []);
  return [...new Set(names)].sort();
}

describe("durable-flow/sync", () => {
  it("is the only entry that bundles the Electric client", async () => {
    const data = await bundledPackages("core/data/index.ts");
    expect(data).toContain("@tanstack/db");
    expect(data).not.toContain("@tanstack/electric-db-collection");
    expect(data).not.toContain("@electric-sql/client");
    expect(await bundledPackages("sync/index.ts")).toContain("@tanstack/electric-db-collection");
  });

  it("builds multiplayer collections; durable-flow/data alone points there", () => {
    const mode = { kind: "multiplayer", apiBaseUrl: "http://127.0.0.1:1", electricBaseUrl: "http://127.0.0.1:1/sync", workspaceId: "acme" } as const;
    expect(() => createCollections(mode, new QueryClient())).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("createTeamCollections") }));
    const cols = createTeamCollections(mode, new QueryClient());
    try {
      expect(cols.mode).toEqual(mode);
      expect(cols.runs.id).toBe("flow:http://127.0.0.1:1:runs");
    } finally {
      cols.close();
    }
  });
});
