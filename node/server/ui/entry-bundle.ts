/**
 * @module node/server/ui/entry-bundle
 * A UI given as a browser entry module (`ui: { entry }`, SPEC.md `GatewayUiConfig`): bundled
 * with esbuild on the first request and kept in memory. Before each page request the files the
 * bundle was made from (outside node_modules) are checked; an edited file rebuilds it. A
 * failed build answers a page with esbuild's messages and is not kept, so the next request
 * after the fix builds again. JSX follows the tsconfig.json nearest the entry (esbuild reads it).
 */
import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, relative } from "node:path";
import type { Metafile } from "esbuild";
import { escapeHtml } from "./index-page.js";
import { bundleErrorPage } from "./missing-app-page.js";
import type { UiFile, UiSource } from "./ui-source.js";

interface Bundle {
  files: Map<string, UiFile>;
  html: string;
  inputs: Map<string, string>;
}

/**
 * The source of a bundled entry module (an absolute path).
 * @example
 * const source = entryBundleSource("/work/app/ui/review.tsx");
 */
export function entryBundleSource(entry: string): UiSource {
  let current: Bundle | undefined;
  let building: Promise<Bundle | Response> | undefined;
  // Files of earlier builds stay servable: a page loaded before a rebuild still finds its assets.
  const served = new Map<string, UiFile>();

  const rebuild = (): Promise<Bundle | Response> => {
    building ??= bundle(entry)
      .then((b) => {
        current = b;
        for (const [path, file] of b.files) served.set(path, file);
        return b;
      })
      .catch((error: unknown) => bundleErrorPage(entry, errorText(error)))
      .finally(() => (building = undefined));
    return building;
  };

  return {
    async file(rel) {
      if (!current) await rebuild();
      return served.get(rel);
    },
    async index() {
      if (current && (await changed(current.inputs))) current = undefined;
      const result = current ?? (await rebuild());
      return result instanceof Response ? result : result.html;
    },
  };
}

async function bundle(entry: string): Promise<Bundle> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    metafile: true,
    outdir: "/ui",
    entryNames: "assets/[name]-[hash]",
    chunkNames: "assets/[name]-[hash]",
    assetNames: "assets/[name]-[hash]",
    splitting: true,
    loader: { ".png": "file", ".svg": "file", ".jpg": "file", ".woff2": "file", ".wasm": "file" },
    logLevel: "silent",
  });
  const files = new Map<string, UiFile>();
  for (const out of result.outputFiles) files.set(out.path.replace(/^\/ui\//, ""), { body: out.contents, immutable: true });
  const entryOutput = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint);
  if (!entryOutput) throw new Error(`esbuild produced no output for ${entry}.`);
  const [jsPath, output] = entryOutput;
  const js = jsPath.replace(/^.*?assets\//, "assets/");
  const css = output.cssBundle?.replace(/^.*?assets\//, "assets/");
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <!--flow-boot-->
${css ? `    <link rel="stylesheet" href="${escapeHtml(css)}" />\n` : ""}    <script type="module" src="${escapeHtml(js)}"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`;
  return { files, html, inputs: await inputTimes(result.metafile) };
}

/** Each input's modification time and size, outside node_modules. */
async function inputTimes(metafile: Metafile): Promise<Map<string, string>> {
  const times = new Map<string, string>();
  for (const input of Object.keys(metafile.inputs)) {
    if (input.includes("node_modules/")) continue;
    const st = await stat(input).catch(() => undefined);
    times.set(input, versionOf(st));
  }
  return times;
}

async function changed(inputs: Map<string, string>): Promise<boolean> {
  for (const [path, version] of inputs) if (versionOf(await stat(path).catch(() => undefined)) !== version) return true;
  return false;
}

function versionOf(st: Stats | undefined): string {
  return st ? `${st.mtimeMs}:${st.size}` : "missing";
}

function errorText(error: unknown): string {
  const errors = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors;
  if (!errors?.length) return (error as Error).message ?? String(error);
  return errors.map((e) => (e.location ? `${relative(process.cwd(), e.location.file) || basename(e.location.file)}:${e.location.line}:${e.location.column}: ${e.text}` : e.text)).join("\n");
}
