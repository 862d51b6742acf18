/**
 * The package's export map stays consistent (docs/package.md): every subpath names its source
 * (the `durable-flow-source` condition the repository resolves), its declarations and its
 * compiled JavaScript, and tsconfig.json's `paths` (what tsc and tsx use here) mirror the sources.
 */
import { builtinModules } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const pkg = readJson("package.json") as {
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const subpaths = Object.entries(pkg.exports).filter(([sub]) => sub !== "./package.json");

describe("package.json exports", () => {
  it("gives every subpath a source file, a .d.ts and compiled JavaScript in dist/", () => {
    expect(subpaths.map(([sub]) => sub)).toEqual(expect.arrayContaining([".", "./core", "./jsx-runtime", "./jsx-dev-runtime"]));
    for (const [sub, target] of subpaths) {
      expect(typeof target, `${sub} must be a conditions object`).toBe("object");
      const conditions = target as Record<string, string>;
      const source = conditions["durable-flow-source"]!;
      expect(existsSync(join(ROOT, source)), `${sub}: ${source}`).toBe(true);
      expect(Object.keys(conditions)[0], `${sub}: the source condition comes first`).toBe("durable-flow-source");
      const built = source.replace(/^\.\//, "./dist/").replace(/\.tsx?$/, "");
      expect(conditions.types).toBe(`${built}.d.ts`);
      expect(conditions.default).toMatch(/^\.\/dist\/.+\.js$/);
      for (const [condition, file] of Object.entries(conditions)) {
        if (condition !== "durable-flow-source" && condition !== "types") expect(file, `${sub} ${condition}`).toMatch(/^\.\/dist\/.+\.js$/);
      }
    }
    expect(pkg.bin.flow).toBe("./dist/node/cli/bin.mjs");
  });

  it("is mirrored by tsconfig.json paths, so tsc and tsx resolve the sources in this repository", () => {
    const paths = (readJson("tsconfig.json") as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
    const expected = Object.fromEntries(subpaths.map(([sub, target]) => [`durable-flow${sub.slice(1)}`, [(target as Record<string, string>)["durable-flow-source"]]]));
    expect(Object.fromEntries(Object.entries(paths).filter(([name]) => name.startsWith("durable-flow")))).toEqual(expected);
  });

  it("loads, from every subpath, only packages an install has (dependencies and peers): the testing kit needs no vitest", async () => {
    const installed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const packageOf = (path: string) => path.split("/").slice(0, path.startsWith("@") ? 2 : 1).join("/");
    for (const [sub, target] of subpaths) {
      const source = (target as Record<string, string>)["durable-flow-source"]!;
      const { metafile } = await build({ entryPoints: [join(ROOT, source)], bundle: true, write: false, platform: "node", format: "esm", packages: "external", metafile: true, logLevel: "silent", outdir: "/unused" });
      const imported = Object.values(metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
      const foreign = [...new Set(imported.filter((p) => !p.startsWith("node:") && !builtinModules.includes(p) && !p.startsWith("durable-flow")).map(packageOf))].filter((name) => !installed.has(name));
      expect(foreign, `${sub} imports packages the package does not depend on`).toEqual([]);
    }
  });
});
