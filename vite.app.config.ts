/**
 * The app's build configuration (beside the package's vite.config.ts, outside `ui/`: it runs in
 * Node at build time, the app never imports it). Builds the app (`npm run build:app` → `dist/app/`): the Solid UI (`ui/`), and the engine's
 * Web Worker (`browser/`) with the workflows bundled into it. Solid's JSX is compiled in `ui/`
 * only; every other `.tsx` (workflows) is Flow JSX. `durable-flow` imports resolve to the
 * sources, as in the tests. The base is relative: the Gateway mounts the same build at `/` and
 * at `/console` and writes a `<base href>` into index.html (docs/app.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";
import { defineConfig, type Plugin, type Rollup } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import solid from "vite-plugin-solid";
import { ensurePgliteSeed } from "./node/store/pglite-seed.js";

const root = fileURLToPath(new URL(".", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { exports: Record<string, string | Record<string, string>> };
const sourceOf = (target: string | Record<string, string>) => (typeof target === "string" ? target : target["durable-flow-source"]);
const selfAliases = Object.entries(pkg.exports)
  .filter(([sub]) => sub !== "./package.json" && sourceOf(pkg.exports[sub]!))
  .map(([sub, target]) => ({ find: new RegExp(`^durable-flow${sub === "." ? "" : sub.slice(1)}$`), replacement: `${root}${sourceOf(target)!.slice(2)}` }))
  // In the browser, `durable-flow` is the runtime-agnostic core plus the Gateway-only tools and
  // CLI agents, which say they need a Gateway when used (browser/index.ts).
  .map((a) => (String(a.find) === String(/^durable-flow$/) ? { ...a, replacement: `${root}browser/index.ts` } : a));
// The workflows bundled into the engine worker (browser/app-workflows.d.ts): the app's examples,
// or the file FLOW_APP_WORKFLOWS names (docs/app-browser.md "Your workflows").
const appWorkflows = { find: /^flow-app-workflows$/, replacement: process.env.FLOW_APP_WORKFLOWS ? resolve(process.env.FLOW_APP_WORKFLOWS) : `${root}examples/app-workflows.tsx` };
// An initialized empty PGlite cluster, bundled so a first visit skips initdb (browser/pglite-seed.d.ts).
const pgliteSeed = { find: /^flow-pglite-seed/, replacement: await ensurePgliteSeed() };

/**
 * The first view's files. The runs list is the view most pages open on (`/` goes there), and a
 * lazy view's files are otherwise asked for only once the entry runs (ui/app.tsx
 * `preloadFirstView`), a second round trip before the first rows: index.html names its chunks
 * (`modulepreload`) and stylesheet beside the entry's (docs/performance.md "A team workspace
 * offline"); other views stay lazy. What the first view loads (files, bytes, modules) is written
 * to `dist/app/.first-view.json` for bench/team-offline.ts and e2e/app-build.test.ts.
 */
function firstView(): Plugin {
  let report: { files: string[]; bytes: number; modules: string[] } | undefined;
  let outDir = "";
  return {
    name: "flow-first-view",
    configResolved: (config) => void (outDir = config.build.outDir),
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        if (!ctx.bundle || !ctx.chunk) return;
        const chunks = new Map(Object.values(ctx.bundle).flatMap((c) => (c.type === "chunk" ? [[c.fileName, c] as const] : [])));
        const graph = (from: string, seen = new Set<string>()) => {
          if (!seen.has(from)) (seen.add(from), chunks.get(from)?.imports.forEach((f) => graph(f, seen)));
          return seen;
        };
        const view = [...chunks.values()].find((c) => c.facadeModuleId?.endsWith("/ui/views/runs-list.tsx"));
        if (!view) return;
        const loaded = graph(ctx.chunk.fileName);
        const added = [...graph(view.fileName)].filter((f) => !loaded.has(f));
        const cssOf = (f: string) => [...((chunks.get(f) as Rollup.OutputChunk & { viteMetadata?: { importedCss: Set<string> } }).viteMetadata?.importedCss ?? [])];
        const js = [...loaded, ...added];
        const files = [...js, ...new Set(js.flatMap(cssOf))];
        const size = (f: string) => { const out = ctx.bundle![f]!; return out.type === "chunk" ? out.code.length : out.source.length; };
        report = { files, bytes: files.reduce((n, f) => n + size(f), 0), modules: js.flatMap((f) => chunks.get(f)!.moduleIds.map((id) => id.replace(root, ""))) };
        return [...added.map((f) => ({ rel: "modulepreload", f })), ...added.flatMap(cssOf).map((f) => ({ rel: "stylesheet", f }))].map(({ rel, f }) => ({ tag: "link", attrs: { rel, crossorigin: true, href: `./${f}` }, injectTo: "head" as const }));
      },
    },
    writeBundle: () => void (report && writeFileSync(join(outDir, ".first-view.json"), JSON.stringify(report, null, 1))),
  };
}

export default defineConfig({
  root: `${root}ui`,
  base: "./",
  resolve: { alias: [...selfAliases, appWorkflows, pgliteSeed], conditions: ["browser", "module", "import", "default"] },
  plugins: [
    firstView(),
    solid({ include: [/\/ui\/.*\.tsx$/, /node_modules\/.*\.jsx$/] }),
    // The service worker (browser/sw.ts) precaches the build, PGlite's wasm and data included
    // (about 16 MB, hence the raised size limit), so a reload without network opens the app.
    VitePWA({
      strategies: "injectManifest",
      srcDir: "../browser",
      filename: "sw.ts",
      injectRegister: false,
      manifest: false,
      injectManifest: { globPatterns: ["**/*.{js,css,html,wasm,data,gz,svg,png,ico}"], maximumFileSizeToCacheInBytes: 48 * 1024 * 1024 },
    }),
  ],
  // Vite replaces `process.env` with `{}` in browser builds; in the engine worker it is the keys
  // kept in this browser (browser/keys.ts), which agents and providers read at run time.
  define: Object.fromEntries(["process.env", "global.process.env", "globalThis.process.env"].map((k) => [k, "(globalThis.process?.env ?? {})"])),
  oxc: { jsx: { runtime: "automatic", importSource: "durable-flow" } },
  worker: { format: "es" },
  // `npx vite -c vite.app.config.ts` during development: the domain API of a Gateway started
  // with `npm start` (or FLOW_DEV_GATEWAY) answers through the dev server's origin.
  server: { proxy: Object.fromEntries(["/v1", "/health", "/workflows", "/rpc"].map((p) => [p, process.env.FLOW_DEV_GATEWAY ?? "http://127.0.0.1:7331"])) },
  build: {
    outDir: `${root}dist/app`,
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 4000,
  },
});
