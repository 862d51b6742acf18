/**
 * The published package, end to end (docs/package.md). Packs the repository (`prepack` builds
 * dist/), installs the tarball into a fresh project, and there checks what a user does first:
 * plain `node` imports and runs the API with no TypeScript loader; `npx flow init` scaffolds a
 * project whose workflow `npx flow up` runs and (in the README's quickstart, run as written)
 * whose own `npm test` (tsc + vitest) passes;
 * `tsc` type-checks a consumer workflow against the published types (with node16 resolution);
 * Vite bundles `durable-flow/core` for the browser.
 *
 * Dependencies come from the registry through the npm cache (`--prefer-offline`). Install
 * scripts are skipped: better-sqlite3's would download a prebuilt binary or compile SQLite
 * (about 2 minutes here), so the test copies the binary the repository already built for the
 * same better-sqlite3 version and Node. The scaffolded project sits inside the host project and
 * resolves the same installed versions from it, instead of a second install.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledSources, loadedModules, packagesOf } from "./loaded-modules.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const repoPkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const versionOf = (name: string) => repoPkg.dependencies[name] ?? repoPkg.devDependencies[name];

/** The environment of a child that is not part of this vitest run. */
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_OPTIONS"));

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...childEnv, ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * The steps between the README's quickstart markers: bash blocks run in order in one shell, and
 * a block titled with a file name (```tsx title=review.tsx) is written to that file there.
 */
function quickstartSteps(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("<!-- quickstart:start -->"), readme.indexOf("<!-- quickstart:end -->"));
  const steps: string[] = [];
  for (const m of section.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = `${m[1]}${m[2]}`;
    const body = m[3]!;
    const file = /title=(\S+)/.exec(info)?.[1];
    if (file) steps.push(`cat > ${file} <<'QUICKSTART_FILE'\n${body}QUICKSTART_FILE`);
    else if (info.startsWith("bash")) {
      // Installs come from the npm cache, and better-sqlite3 gets the binary the repository
      // built instead of compiling SQLite again (about 2 minutes): speed, not a changed step.
      for (const line of body.split("\n")) steps.push(/^npm install\b/.test(line) ? `${line}\nprebuilt_sqlite` : line);
    }
  }
  return steps;
}

/** Runs the quickstart in a new folder beside a link `flow` to the packed tarball's folder. */
function runQuickstart(packDir: string): Promise<{ code: number | null; out: string; root: string }> {
  const root = mkdtempSync(join(tmpdir(), "flow-quickstart-"));
  symlinkSync(packDir, join(root, "flow"));
  const script = [
    "set -euo pipefail",
    `prebuilt_sqlite() { local d=node_modules/better-sqlite3/build/Release; if [ -d node_modules/better-sqlite3 ] && [ ! -e $d/better_sqlite3.node ]; then mkdir -p $d && cp ${JSON.stringify(join(ROOT, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"))} $d/; fi; }`,
    ...quickstartSteps(),
  ].join("\n");
  const env = { npm_config_prefer_offline: "true", npm_config_ignore_scripts: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd: root, env: { ...childEnv, ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (error) => resolve({ code: null, out: `${out}\n${String(error)}`, root }));
    child.on("close", (code) => resolve({ code, out, root }));
  });
}

describe.concurrent("the packed durable-flow package, installed in a fresh project", () => {
  let host = "";
  let installed = "";
  /** The README's quickstart, started as soon as the tarball exists (its test awaits it). */
  let quickstart: ReturnType<typeof runQuickstart> | undefined;
  let packed: Promise<void> | undefined;
  /** Set by afterAll: a pack that ends later (beforeAll timed out) starts no quickstart. */
  let finished = false;

  beforeAll(async () => {
    host = mkdtempSync(join(tmpdir(), "flow-package-"));
    const install = ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"];
    // The tools the checks use (no vitest: only the quickstart's own project runs tests, and the
    // testing kit needs no vitest), and (to overlap with packing) the package's own dependencies;
    // installing the tarball afterwards then checks that its dependencies resolve.
    const tools = ["typescript", "vite", "@types/node", "zod"].map((name) => `${name}@${versionOf(name)}`);
    const deps = Object.entries(repoPkg.dependencies).map(([name, version]) => `${name}@${version}`);
    writeFileSync(join(host, "package.json"), JSON.stringify({ name: "flow-package-host", private: true }));
    const packDir = join(host, "pack");
    mkdirSync(packDir);
    // The build's declarations without tsc's type check (scripts/build.ts): the same files, and
    // the suite type-checks the sources itself (scripts/test.sh); the pack is this file's critical path.
    packed = ok("npm", ["pack", "--pack-destination", packDir], ROOT, { FLOW_BUILD_TYPECHECKED: "1" }).then(() => void (quickstart = finished ? undefined : runQuickstart(packDir)));
    await Promise.all([packed, ok("npm", [...install, ...tools, ...deps], host)]);
    const tarball = readdirSync(packDir).find((f) => f.endsWith(".tgz"))!;
    expect(tarball).toBe(`durable-flow-${repoPkg.version}.tgz`);
    await ok("npm", [...install, join(packDir, tarball)], host);
    const binary = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
    mkdirSync(join(host, binary, ".."), { recursive: true });
    copyFileSync(join(ROOT, binary), join(host, binary));
    installed = join(host, "node_modules/durable-flow");
  }, 240_000);

  afterAll(() => {
    // The quickstart's folder when its test did not run (its test removes it), once it ends.
    finished = true;
    void packed?.then(() => quickstart?.then((result) => rmSync(result.root, { recursive: true, force: true })), () => undefined);
    if (host) rmSync(host, { recursive: true, force: true });
  });

  it("ships compiled JavaScript and declarations for every subpath, and no TypeScript sources or tests", async () => {
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };
    for (const [sub, target] of Object.entries(pkg.exports)) {
      if (sub === "./package.json") continue;
      const conditions = target as Record<string, string>;
      expect(readFileSync(join(installed, conditions.types!), "utf8"), `${sub} types`).toContain("export");
      expect(readFileSync(join(installed, conditions.default!), "utf8"), `${sub} default`).not.toMatch(/^\s*import type /m);
    }
    const files = (await ok("tar", ["-tzf", join(host, "pack", `durable-flow-${repoPkg.version}.tgz`)], host)).split("\n").filter(Boolean);
    expect(files.filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    // Tests and test helpers stay out, but for the testing kit, which ships as durable-flow/testing.
    const kit = /^package\/dist\/node\/(agents\/)?testing\//;
    expect(files.filter((f) => /\.test(-d)?\.|\/testing\//.test(f) && !kit.test(f))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["package/dist/node/testing/index.js", "package/dist/node/testing/index.d.ts", "package/dist/node/testing/fake-cli.mjs"]));
    expect(files).toContain("package/dist/node/cli/bin.mjs");
  });

  it("packs under 3 MB, without the PGlite files the app would carry twice", async () => {
    const tarball = join(host, "pack", `durable-flow-${repoPkg.version}.tgz`);
    expect(statSync(tarball).size).toBeLessThan(3 * 1024 * 1024);
    const files = (await ok("tar", ["-tzf", tarball], host)).split("\n");
    expect(files.filter((f) => /\.(wasm|data)$|seed\.tar/.test(f))).toEqual([]);
    expect(files).toContain("package/dist/app/index.html");
  });

  it("loads no agent, hosting, PGlite, PostgreSQL, OpenAPI or Effect package when the entry is imported", () => {
    const { esm, cjs } = loadedModules(`await import("durable-flow");`, host);
    const loaded = packagesOf([...esm, ...cjs]);
    const lazy = ["ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/openai-compatible", "@opentelemetry/api", "hono", "@hono/node-server", "ws", "jose", "prom-client", "esbuild", "@electric-sql/client", "@electric-sql/pglite", "pg", "effect", "yaml", "@apidevtools/json-schema-ref-parser", "diff", "drizzle-orm", "better-sqlite3"];
    expect(loaded.filter((name) => lazy.includes(name))).toEqual([]);
    // The testing kit (durable-flow/testing) is a subpath of its own, never loaded by the entry:
    // neither its file nor its modules inside a shared chunk.
    expect(esm.filter((url) => /\/durable-flow\/dist\/node\/(agents\/)?testing\//.test(url))).toEqual([]);
    const sources = bundledSources(esm);
    expect(sources).toContain("node/create-flow.ts");
    expect(sources.filter((file) => /^node\/(agents\/)?testing\//.test(file))).toEqual([]);
  });

  it("answers PACKAGE_MISSING with the install command when a pglite store opens without @electric-sql/pglite", async () => {
    writeFileSync(
      join(host, "pglite.mjs"),
      `import { openPgliteStore } from "durable-flow";
try {
  await openPgliteStore({ dataDir: ".flow/pglite" });
  console.log("opened");
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`,
    );
    const out = JSON.parse((await ok(process.execPath, ["pglite.mjs"], host)).trim().split("\n").at(-1)!) as { code: string; message: string };
    expect(out.code).toBe("PACKAGE_MISSING");
    expect(out.message).toContain(`npm install @electric-sql/pglite@${versionOf("@electric-sql/pglite")}`);
  }, 60_000);

  it("runs the API under plain node, with no TypeScript loader", async () => {
    writeFileSync(
      join(host, "app.mjs"),
      `import { z } from "zod";
import { createFlow, runWorkflow } from "durable-flow";
import { FlowError } from "durable-flow/core";
import { jsx } from "durable-flow/jsx-runtime";
import { jsxDEV } from "durable-flow/jsx-dev-runtime";

const { flow, Workflow, Task, outputs } = createFlow({ output: z.object({ sum: z.number() }) }, { dbPath: ":memory:" });
const workflow = flow(() => jsx(Workflow, { name: "plain", children: jsxDEV(Task, { id: "add", output: outputs.output, children: () => ({ sum: 1 + 2 }) }) }));
const result = await runWorkflow(workflow, { input: {} });
console.log(JSON.stringify({ status: result.status, output: result.output, flowError: typeof FlowError }));
`,
    );
    const out = await ok(process.execPath, ["app.mjs"], host);
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({ status: "finished", output: { sum: 3 }, flowError: "function" });
  }, 60_000);

  it("runs the testing kit's fake CLIs from the installed package (their script ships beside the bundle)", async () => {
    writeFileSync(
      join(host, "fakes.mjs"),
      `import { execFileSync } from "node:child_process";
import { installFakeClis } from "durable-flow/testing";
const fakes = installFakeClis();
execFileSync("claude", ["-p", "hi"], { env: { ...process.env, ...fakes.env() } });
console.log(JSON.stringify(fakes.records().map((r) => ({ name: r.name, args: r.args }))));
`,
    );
    const out = await ok(process.execPath, ["fakes.mjs"], host);
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual([{ name: "claude", args: ["-p", "hi"] }]);
  }, 60_000);

  // The scaffold's own `npm test` (tsc + vitest, ~25 s of CPU) runs in the quickstart test below,
  // on the same `flow init` output: it is not run twice.
  it("scaffolds a project with flow init into a named folder, whose workflow flow up runs", async () => {
    const said = await ok("npx", ["flow", "init", "my-flow"], host);
    expect(said).toContain("npm test");
    const app = join(host, "my-flow");
    const scaffold = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(scaffold.dependencies["durable-flow"]).toBe(`^${repoPkg.version}`);
    expect(scaffold.devDependencies.vitest).toBe(versionOf("vitest"));
    expect(readFileSync(join(app, ".gitignore"), "utf8")).toContain(".flow/");

    const up = await ok("npx", ["flow", "up", "workflow.tsx", "--input", '{"name":"Grace Hopper"}', "--json", "--log-dir", "none"], app);
    const result = up.trim().split("\n").map((line) => JSON.parse(line) as { type: string; status?: string; output?: unknown }).find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "finished", output: { text: "Hello, Grace Hopper!", words: 3 } });
  }, 90_000);

  // The version of a run's workflow is the hash of the file that called `flow(...)`, found from
  // the stack: in the built package `flow` lives in a bundler's chunk, which once passed for
  // every workflow's file, so a Gateway took each run `flow up` started for changed code.
  it("resumes a run flow up parked in flow serve, after an approval through its API, as the same workflow", async () => {
    await ok("npx", ["flow", "init", "gate-flow"], host);
    const app = join(host, "gate-flow");
    writeFileSync(
      join(app, "gate.tsx"),
      `import { z } from "zod";
import { approvalDecisionSchema, createFlow } from "durable-flow";

const { flow, Workflow, Task, Approval, outputs } = createFlow({ decision: approvalDecisionSchema, output: z.object({ shipped: z.boolean() }) });
export default flow(() => (
  <Workflow name="gate">
    <Approval id="ship" output={outputs.decision} request={{ title: "Ship?" }} />
    <Task id="deploy" output={outputs.output}>{() => ({ shipped: true })}</Task>
  </Workflow>
));
`,
    );
    expect(await ok("npx", ["flow", "up", "gate.tsx", "--run-id", "g1"], app)).toContain("waiting-approval");
    // A script beside it, as the quickstart's app.ts: it runs when imported, so flow serve leaves it alone.
    writeFileSync(join(app, "app.ts"), `import { writeFileSync } from "node:fs";\nwriteFileSync("imported.txt", "app.ts ran");\n`);
    const serve = spawn(join(host, "node_modules/.bin/flow"), ["serve", ".", "--port", "0"], { cwd: app, env: { ...childEnv, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    serve.stdout.on("data", (d) => (said += d));
    serve.stderr.on("data", (d) => (said += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        serve.stdout.on("data", () => /listening on (http:\/\/\S+)/.exec(said) && resolve(/listening on (http:\/\/\S+)/.exec(said)![1]!));
        serve.on("close", () => reject(new Error(`flow serve exited:\n${said}`)));
      });
      const post = await fetch(`${url}/v1/api/approvals`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId: "g1", nodeId: "ship", decision: "approve" }) });
      expect(post.status).toBe(200);
      let status = "";
      for (let i = 0; i < 100 && status !== "finished"; i++) {
        status = ((await (await fetch(`${url}/v1/api/runs/g1?view=summary`)).json()) as { result: { status: string } }).result.status;
        if (status !== "finished") await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe("finished");
      const { events } = ((await (await fetch(`${url}/v1/api/runs/g1/events`)).json()) as { result: { events: Array<{ type: string }> } }).result;
      expect(events.map((e) => e.type)).not.toContain("WorkflowChanged");
      expect(said).not.toContain("the workflow changed");
      expect(existsSync(join(app, "imported.txt"))).toBe(false);
      expect(said).toMatch(/skipping \S+app\.ts: it exports no default and no `workflow` \(not imported\)/);
    } finally {
      serve.kill("SIGTERM");
    }
  }, 90_000);

  it("runs the README's quickstart exactly as written, in a folder outside the repository", async () => {
    expect(quickstartSteps().join("\n")).toContain("npx flow init");
    // Started by beforeAll as soon as the tarball was packed (it needs nothing else).
    const result = await quickstart!;
    try {
      expect(result.code, result.out).toBe(0);
      // `npm test` of the scaffold: the greeting and the agent example, its model scripted with durable-flow/testing.
      expect(result.out).toMatch(/Tests\s+2 passed/);
      expect(result.out.trim().split("\n").at(-1)).toBe('finished {"approved":true,"rounds":2}');
      const pkg = JSON.parse(readFileSync(join(result.root, "my-flow", "package.json"), "utf8")) as { type: string; dependencies: Record<string, string> };
      expect(pkg.type).toBe("module");
      expect(pkg.dependencies["durable-flow"]).toMatch(/^file:.*durable-flow-.*\.tgz$/);
      // The scaffold's `npm test` ran before `npm start`: its runs (the agent's "weather") stayed out of the project's store.
      const runs = JSON.parse(await ok("npx", ["flow", "runs", "--json"], join(result.root, "my-flow"))) as Array<{ workflowName: string }>;
      expect(new Set(runs.map((r) => r.workflowName))).toEqual(new Set(["hello", "review"]));
    } finally {
      rmSync(result.root, { recursive: true, force: true });
    }
  }, 300_000);

  it("type-checks a consumer workflow against the published types (node16 resolution)", async () => {
    const consumer = join(host, "consumer");
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2023", module: "nodenext", moduleResolution: "nodenext", jsx: "react-jsx", jsxImportSource: "durable-flow", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] } }),
    );
    writeFileSync(
      join(consumer, "workflow.tsx"),
      `import { z } from "zod";
import { createFlow, runWorkflow, type FlowApi } from "durable-flow";
import { isFlowError } from "durable-flow/core";

const { flow, Workflow, Task, outputs } = createFlow({ input: z.object({ n: z.number() }), output: z.object({ doubled: z.number() }) });
export default flow((ctx) => (
  <Workflow name="typed">
    <Task id="double" output={outputs.output}>{() => ({ doubled: ctx.input.n * 2 })}</Task>
    {/* @ts-expect-error: a row with the wrong type for its output table */}
    <Task id="wrong" output={outputs.output}>{() => ({ doubled: "two" })}</Task>
  </Workflow>
));
export const check = (api: FlowApi<{}>, e: unknown) => [api, isFlowError(e), runWorkflow] as const;
`,
    );
    const tsc = await run(join(host, "node_modules/.bin/tsc"), ["--noEmit", "-p", "."], consumer);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  }, 60_000);

  it("bundles durable-flow/core for the browser with Vite", async () => {
    const web = join(host, "web");
    mkdirSync(web);
    writeFileSync(join(web, "main.js"), `import { runWorkflow, createFlowApi } from "durable-flow/core";\nexport { runWorkflow, createFlowApi };\n`);
    writeFileSync(
      join(web, "vite.config.mjs"),
      `export default { logLevel: "warn", build: { outDir: "dist", minify: false, lib: { entry: "main.js", formats: ["es"], fileName: "app" } } };\n`,
    );
    const built = await run(join(host, "node_modules/.bin/vite"), ["build"], web);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).not.toMatch(/externalized for browser compatibility/);
    const code = readdirSync(join(web, "dist")).map((f) => readFileSync(join(web, "dist", f), "utf8")).join("\n");
    expect(code).toContain("function runWorkflow");
    expect(code).not.toMatch(/from ["']node:|import\(["']node:|require\(["']node:/);
  }, 60_000);
});
