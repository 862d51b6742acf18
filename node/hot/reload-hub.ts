/**
 * @module node/hot/reload-hub
 * One watched workflow file (per output directory) in this process, shared by every run that
 * hot-reloads it: watches the file and the local files it imports, debounces changes, bundles
 * a new generation into `<outDir>/gen-<n>.mjs`, loads it, and hands its build to every
 * subscriber. See docs/hot-reload.md.
 *
 * Generations: 1 is the build the run started with (loaded by the host, no file); each edit
 * that compiles gets the next number. A number is used once even when loading that generation
 * fails (its file is deleted): Node caches modules by URL, so a file name must never be reused.
 * A syntax error consumes no number and writes nothing. At most `maxGenerations` files stay.
 */
import { randomUUID, createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { FlowWorkflow, HotBuild } from "../../core/engine/index.js";
import { bindingOf } from "../../core/engine/index.js";
import { FlowError, isFlowError } from "../../core/errors.js";
import { bundleWorkflow } from "./bundle.js";
import { registerHotContext } from "./hot-context.js";
import { watchFiles } from "./watch-files.js";

/** A build of a reloaded workflow file, with the workflow it came from. */
export interface NodeHotBuild extends HotBuild {
  /** The reloaded module's workflow (bound to the running run's store when it was found). */
  workflow: FlowWorkflow;
  /** The generation's bundle, `<outDir>/gen-<n>.mjs`. */
  file: string;
}

export interface HubSubscriber {
  onBuild(build: NodeHotBuild): void;
  onError(error: unknown): void;
}

export interface HubOptions {
  file: string;
  rootDir: string;
  outDir: string;
  maxGenerations: number;
  debounceMs: number;
  /** The running workflow; found by importing `file` when absent. */
  baseline?: FlowWorkflow;
}

const GEN_FILE = /^gen-(\d+)\.mjs(\.tmp-.*)?$/;

export class ReloadHub {
  readonly ready: Promise<void>;
  closed = false;
  baseline: FlowWorkflow | undefined;
  private readonly subscribers = new Set<HubSubscriber>();
  private readonly token = randomUUID();
  private readonly files = watchFiles(() => this.schedule());
  private inputs: string[];
  private generation = 1;
  private lastHash: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private building = false;
  private again = false;
  private unregister: (() => void) | undefined;

  constructor(readonly opts: HubOptions) {
    this.inputs = [opts.file];
    this.ready = this.start();
  }

  /** Adds a subscriber; returns the function that removes it (the last one closes the hub). */
  subscribe(sub: HubSubscriber): () => void {
    this.subscribers.add(sub);
    return () => {
      this.subscribers.delete(sub);
      if (this.subscribers.size === 0) this.close();
    };
  }

  private async start(): Promise<void> {
    const { file, outDir } = this.opts;
    mkdirSync(outDir, { recursive: true });
    // Generations of an earlier process: this one numbers from 2 again.
    for (const name of readdirSync(outDir)) if (GEN_FILE.test(name)) rmSync(join(outDir, name), { force: true });
    this.files.update(this.inputs);
    this.baseline = this.opts.baseline ?? (await importBaseline(file));
    this.unregister = registerHotContext(this.token, file, this.baseline);
    try {
      // Only to learn which local files the workflow imports; nothing is written or loaded.
      const bundle = await bundleWorkflow(file, { rootDir: this.opts.rootDir, outFile: this.genFile(1), token: this.token });
      this.inputs = bundle.inputs;
      this.files.update(this.inputs);
      this.lastHash = hashFiles(this.inputs);
    } catch (error) {
      this.emitError(error);
    }
    if (this.closed) this.close();
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.rebuild();
    }, this.opts.debounceMs);
  }

  private async rebuild(): Promise<void> {
    await this.ready;
    if (this.closed) return;
    if (this.building) {
      this.again = true;
      return;
    }
    this.building = true;
    try {
      await this.buildNext();
    } catch (error) {
      this.emitError(error);
    } finally {
      this.building = false;
      if (this.again && !this.closed) {
        this.again = false;
        this.schedule();
      }
    }
  }

  private async buildNext(): Promise<void> {
    const before = hashFiles(this.inputs);
    if (before === this.lastHash) return; // Saved without a change, or touched.
    const n = this.generation + 1;
    const outFile = this.genFile(n);
    let bundle;
    try {
      bundle = await bundleWorkflow(this.opts.file, { rootDir: this.opts.rootDir, outFile, token: this.token });
    } catch (error) {
      this.lastHash = before;
      throw error;
    }
    // Any edit after `before` was read fires the watcher again and differs from it.
    this.lastHash = sameSet(bundle.inputs, this.inputs) ? before : undefined;
    this.inputs = bundle.inputs;
    this.files.update(this.inputs);
    this.generation = n;
    const tmp = `${outFile}.tmp-${process.pid}`;
    writeFileSync(tmp, bundle.code);
    renameSync(tmp, outFile);
    let workflow: FlowWorkflow;
    try {
      workflow = await loadGeneration(outFile, this.opts.file, this.baseline);
    } catch (error) {
      rmSync(outFile, { force: true });
      throw error;
    }
    if (this.closed) return;
    this.prune(n);
    for (const sub of [...this.subscribers]) {
      try {
        sub.onBuild({ build: workflow.build, generation: n, workflow, file: outFile });
      } catch (error) {
        sub.onError(error);
      }
    }
  }

  private prune(latest: number): void {
    for (const name of readdirSync(this.opts.outDir)) {
      const m = GEN_FILE.exec(name);
      if (m && !m[2] && Number(m[1]) <= latest - this.opts.maxGenerations) rmSync(join(this.opts.outDir, name), { force: true });
    }
  }

  private emitError(error: unknown): void {
    const flowError = isFlowError(error) ? error : new FlowError("HOT_RELOAD_FAILED", `Hot reload of ${this.opts.file} failed: ${(error as Error)?.message ?? String(error)}`, { workflowPath: this.opts.file }, { cause: error });
    for (const sub of [...this.subscribers]) {
      try {
        sub.onError(flowError);
      } catch {
        // A failing error handler must not stop the others or the watcher.
      }
    }
  }

  private genFile(n: number): string {
    return join(this.opts.outDir, `gen-${n}.mjs`);
  }

  private close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.files.close();
    this.unregister?.();
  }
}

/** The workflow the host loaded from `file`: the same module instance, from the module cache. */
async function importBaseline(file: string): Promise<FlowWorkflow | undefined> {
  try {
    const workflow = workflowOf(await import(pathToFileURL(file).href));
    if (workflow) bindingOf(workflow);
    return workflow;
  } catch {
    // Not loadable here (or not bound to a store): reloaded builds open their own store.
    return undefined;
  }
}

async function loadGeneration(outFile: string, file: string, baseline: FlowWorkflow | undefined): Promise<FlowWorkflow> {
  let mod: unknown;
  try {
    mod = await import(pathToFileURL(outFile).href);
  } catch (error) {
    if (isFlowError(error)) throw error;
    throw new FlowError("HOT_RELOAD_FAILED", `Hot reload: loading the new build of ${file} threw: ${(error as Error)?.message ?? String(error)}. The previous build keeps running.`, { workflowPath: file }, { cause: error });
  }
  const workflow = workflowOf(mod);
  if (!workflow) {
    throw new FlowError("HOT_RELOAD_FAILED", `Hot reload: ${file} must export default a workflow made with flow(...) (or export one named \`workflow\`). The previous build keeps running.`, { workflowPath: file });
  }
  if (baseline && bindingOf(workflow, "reloaded workflow") !== bindingOf(baseline)) {
    throw new FlowError("HOT_RELOAD_FAILED", `Hot reload: the new build of ${file} is bound to another store than the running run; build it from the api of createFlow/createFlowPostgres/openFlowBackend in the file (or its local imports). The previous build keeps running.`, { workflowPath: file });
  }
  return workflow;
}

function workflowOf(mod: unknown): FlowWorkflow | undefined {
  const m = mod as { default?: unknown; workflow?: unknown };
  const w = (m.default ?? m.workflow) as FlowWorkflow | undefined;
  return w && typeof w === "object" && typeof w.build === "function" ? w : undefined;
}

function hashFiles(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const f of files) hash.update(f).update("\0").update(readOrMissing(f)).update("\0");
  return hash.digest("hex");
}

function readOrMissing(file: string): Buffer | string {
  try {
    return readFileSync(file);
  } catch {
    return "<missing>";
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
