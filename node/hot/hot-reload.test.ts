import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { createNodeHotReload, FlowDb, type FlowWorkflow, isFlowError, type NodeHotBuild, runWorkflow } from "durable-flow";

// Inside the repository (under its git-ignored .flow/), so `durable-flow` resolves from there.
const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function workDir(): string {
  mkdirSync(join(REPO, ".flow"), { recursive: true });
  const dir = mkdtempSync(join(REPO, ".flow", "hot-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The workflow file: one task whose row is `{ value, label }`, the label from a local import. */
const workflowSource = (dbPath: string, value: string, opts: { schema?: string } = {}) => `
import { z } from "zod";
import { createFlow } from "durable-flow";
import { label } from "./label.js";

export const api = createFlow({ step: z.object(${opts.schema ?? "{ value: z.number(), label: z.string() }"}) }, { dbPath: ${JSON.stringify(dbPath)} });

export default api.flow(() => (
  <api.Workflow name="hot">
    <api.Task id="a" output={api.outputs.step}>{{ value: ${value}, label: label() }}</api.Task>
  </api.Workflow>
));
`;

type Api = { flow(build: (ctx: any) => any): FlowWorkflow; db: unknown; outputs: { step: object } };

/** Events from one watch, awaited in order. */
function recorder() {
  const queue: Array<{ build?: NodeHotBuild; error?: unknown }> = [];
  const waiting: Array<(e: { build?: NodeHotBuild; error?: unknown }) => void> = [];
  const push = (e: { build?: NodeHotBuild; error?: unknown }) => (waiting.length ? waiting.shift()!(e) : queue.push(e));
  return {
    onBuild: (build: NodeHotBuild) => push({ build }),
    onError: (error: unknown) => push({ error }),
    next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise<{ build?: NodeHotBuild; error?: unknown }>((r) => waiting.push(r))),
  };
}

async function rowsOf(api: Api, workflow: FlowWorkflow) {
  const result = await runWorkflow(workflow, { input: {} });
  expect(result.status).toBe("finished");
  return (await new FlowDb(api.db).listOutputs(result.runId, "step")).map((r) => ({ value: r.value, label: r.label }));
}

async function setUp() {
  const dir = workDir();
  const file = join(dir, "review.tsx");
  const dbPath = join(dir, "flow.db");
  writeFileSync(join(dir, "label.ts"), `export const label = () => "one";\n`);
  writeFileSync(file, workflowSource(dbPath, "1"));
  const mod = (await import(pathToFileURL(file).href)) as { api: Api; default: FlowWorkflow };
  return { dir, file, dbPath, mod, outDir: join(dir, ".flow", "hmr") };
}

const gens = (outDir: string) => readdirSync(outDir).sort();

describe("hot reload", () => {
  it("delivers each edit as a new generation that renders differently on the running store, keeping maxGenerations files", async () => {
    const { dir, file, dbPath, mod, outDir } = await setUp();
    expect(await rowsOf(mod.api, mod.default)).toEqual([{ value: 1, label: "one" }]);

    const events = recorder();
    const stop = createNodeHotReload().watch(file, { rootDir: dir, maxGenerations: 2, debounceMs: 30 }, events.onBuild, events.onError);
    onTestFinished(stop);
    await stop.ready;

    writeFileSync(file, workflowSource(dbPath, "2"));
    const second = await events.next();
    expect(second.error).toBeUndefined();
    expect(second.build).toMatchObject({ generation: 2, file: join(outDir, "gen-2.mjs") });
    // The new build uses the running store's schema objects, so the original registry resolves them.
    expect(second.build!.workflow.schemaRegistry!.step!.schema).toBe(mod.api.outputs.step);
    expect(await rowsOf(mod.api, mod.api.flow(second.build!.build))).toEqual([{ value: 2, label: "one" }]);

    // An edit of a local file the workflow imports reloads too.
    writeFileSync(join(dir, "label.ts"), `export const label = () => "two";\n`);
    const third = await events.next();
    expect(third.build?.generation).toBe(3);
    expect(await rowsOf(mod.api, mod.api.flow(third.build!.build))).toEqual([{ value: 2, label: "two" }]);
    expect(gens(outDir)).toEqual(["gen-2.mjs", "gen-3.mjs"]);

    writeFileSync(file, workflowSource(dbPath, "4"));
    expect((await events.next()).build?.generation).toBe(4);
    expect(gens(outDir)).toEqual(["gen-3.mjs", "gen-4.mjs"]);
  });

  it("reports a syntax error through onError and keeps the previous build; the fix is the next generation", async () => {
    const { dir, file, dbPath, mod, outDir } = await setUp();
    const events = recorder();
    const stop = createNodeHotReload().watch(file, { rootDir: dir, debounceMs: 30 }, events.onBuild, events.onError);
    onTestFinished(stop);
    await stop.ready;

    writeFileSync(file, workflowSource(dbPath, "2"));
    const good = (await events.next()).build!;
    expect(good.generation).toBe(2);

    writeFileSync(file, workflowSource(dbPath, "2 +"));
    const broken = await events.next();
    expect(broken.build).toBeUndefined();
    expect(isFlowError(broken.error, "HOT_RELOAD_FAILED")).toBe(true);
    expect((broken.error as Error).message).toMatch(/review\.tsx:\d+:\d+: /);
    expect(gens(outDir)).toEqual(["gen-2.mjs"]);
    // What the run keeps rendering is still generation 2.
    expect(await rowsOf(mod.api, mod.api.flow(good.build))).toEqual([{ value: 2, label: "one" }]);

    writeFileSync(file, workflowSource(dbPath, "3"));
    const fixed = (await events.next()).build!;
    expect(fixed.generation).toBe(3);
    expect(await rowsOf(mod.api, mod.api.flow(fixed.build))).toEqual([{ value: 3, label: "one" }]);
  });

  it("rejects a module without a workflow export and a changed schema, without crashing the watcher", async () => {
    const { dir, file, dbPath, outDir } = await setUp();
    const events = recorder();
    const stop = createNodeHotReload().watch(file, { rootDir: dir, debounceMs: 30 }, events.onBuild, events.onError);
    onTestFinished(stop);
    await stop.ready;

    writeFileSync(file, `export const nothing = 1;\n`);
    const noExport = await events.next();
    expect(noExport.error).toMatchObject({ code: "HOT_RELOAD_FAILED", message: expect.stringContaining("must export default a workflow") });
    expect(existsSync(join(outDir, "gen-2.mjs"))).toBe(false);

    writeFileSync(file, workflowSource(dbPath, "5", { schema: "{ value: z.number(), label: z.string(), extra: z.boolean() }" }));
    const changed = await events.next();
    expect(changed.error).toMatchObject({ code: "HOT_RELOAD_FAILED", details: { changes: ["step changed"] } });

    writeFileSync(file, workflowSource(dbPath, "6"));
    // Numbers of generations that failed to load are not reused (Node caches modules by URL).
    expect((await events.next()).build?.generation).toBe(4);
    expect(gens(outDir)).toEqual(["gen-4.mjs"]);
  });

  it("shares one watcher between runs of a file and starts afresh once every run stopped", async () => {
    const { dir, file, dbPath, outDir } = await setUp();
    const port = createNodeHotReload();
    const a = recorder();
    const b = recorder();
    const stopA = port.watch(file, { rootDir: dir, debounceMs: 30 }, a.onBuild, a.onError);
    const stopB = port.watch(file, { rootDir: dir, debounceMs: 30 }, b.onBuild, b.onError);
    await Promise.all([stopA.ready, stopB.ready]);
    writeFileSync(file, workflowSource(dbPath, "2"));
    const [fromA, fromB] = await Promise.all([a.next(), b.next()]);
    expect(fromA.build?.generation).toBe(2);
    expect(fromB.build?.build).toBe(fromA.build?.build);
    stopA();
    stopB();

    const c = recorder();
    const stopC = port.watch(file, { rootDir: dir, debounceMs: 30 }, c.onBuild, c.onError);
    onTestFinished(stopC);
    await stopC.ready;
    expect(gens(outDir)).toEqual([]);
    writeFileSync(file, workflowSource(dbPath, "3"));
    expect((await c.next()).build?.generation).toBe(2);
  });

  it("refuses invalid options", () => {
    const port = createNodeHotReload();
    expect(() => port.watch("x.tsx", { maxGenerations: 0 }, () => {}, () => {})).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => port.watch("x.tsx", { debounceMs: -1 }, () => {}, () => {})).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
