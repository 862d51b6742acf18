/**
 * @module core/engine/workflow-identity
 * How a run knows its workflow whatever loaded it: the file that defined a workflow (taken
 * from the stack when `flow(build)` is called, or set by the loader that imported it), which
 * the run's hash is computed from, so tsx, vitest and esbuild agree on an untouched file;
 * and the name its root `<Workflow name>` declares, by which any host serving the workflow
 * recognises runs another process started.
 */
import { Workflow } from "../components/index.js";
import { isFlowElement } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import { sha256Hex } from "../util/index.js";
import type { StoreBinding } from "../binding.js";
import { createCtx } from "./ctx.js";
import { OutputIndex } from "./output-index.js";
import type { FlowWorkflow, RunOptions } from "./types.js";

/** A source location in a stack line: `file:///a/b.tsx:3:7`, `/a/b.ts:3:7`, `C:\\a\\b.ts:3:7`. */
const FRAME = /(?:file:\/\/)?((?:\/|[A-Za-z]:[\\/])[^\s()]*?):(\d+):\d+/;


/** Per file, the lines `flow(build)` was called from in this process. */
const sitesByFile = new Map<string, Set<number>>();

/**
 * Records where `flow(build)` was called, read from `stack` (`new Error().stack` taken in
 * `flow`, so its first frame is `flow` itself): sets `workflow.sourcePath` (and the line, which
 * tells apart workflows defined in one file) to the first frame in another file than `flow`'s.
 * That file is known from the stack, not by name: in the built package `flow` lives in a
 * bundler's chunk, and a name check let the chunk pass for every workflow's file. Where all
 * frames are in `flow`'s file (a workflow bundled with Flow into one script), its caller's frame
 * counts. Does nothing when the runtime gives no file paths.
 * @example
 * recordDefiningSite(workflow, new Error().stack); // workflow.sourcePath === "/repo/review.tsx"
 */
export function recordDefiningSite(workflow: FlowWorkflow, stack: string | undefined): void {
  const frames = (stack ?? "").split("\n").slice(1).flatMap((line) => {
    const match = FRAME.exec(line);
    return match ? [{ file: decodeURIComponent(match[1]!.replace(/\?.*$/, "")), at: Number(match[2]) }] : [];
  });
  const own = frames[0]?.file;
  const site = frames.find((frame) => frame.file !== own) ?? frames[1];
  if (!site) return;
  workflow.sourcePath = site.file;
  sourceLines.set(workflow, site.at);
  sitesByFile.set(site.file, (sitesByFile.get(site.file) ?? new Set()).add(site.at));
}

const sourceLines = new WeakMap<FlowWorkflow, number>();

/**
 * The hash recorded with a run: `WorkflowOptions.workflowHash`, else the hash of the workflow
 * file's text (`RunOptions.workflowPath`, else the file that defined the workflow) when the
 * host can read files, else the build function's source and the schemas (a browser). A file
 * that defines several workflows adds the line each is defined on (stack lines are
 * source-mapped by tsx and vitest alike), so they do not share a hash.
 * @example
 * const hash = workflowHashOf(workflow, bindingOf(workflow), { workflowPath: "review.tsx" });
 */
export function workflowHashOf(workflow: FlowWorkflow, binding: StoreBinding, opts: RunOptions): string {
  if (workflow.opts.workflowHash) return workflow.opts.workflowHash;
  const path = opts.workflowPath ?? workflow.sourcePath;
  const fromFile = path ? binding.env.hashWorkflowFile?.(path) : undefined;
  if (fromFile === undefined) return sha256Hex(`${workflow.build.toString()}\n${binding.registry.signature()}`);
  const line = sourceLines.get(workflow);
  const shared = path !== undefined && workflow.sourcePath === path && line !== undefined && (sitesByFile.get(path)?.size ?? 0) > 1;
  return shared ? sha256Hex(`${fromFile}:${line}`) : fromFile;
}

const declared = new WeakMap<FlowWorkflow, string | null>();

/**
 * The name of a workflow: `readableName`, else the `name` of the `<Workflow>` its build
 * function returns (built with `input`, default `{}`, and the run's `auth`, so a build that reads
 * them sees what the run will give it); null when neither says one. A build that throws on the
 * input it is given names nothing.
 * @example
 * workflowNameOf(workflow); // "review" for () => <Workflow name="review">...</Workflow>
 */
export function workflowNameOf(workflow: FlowWorkflow, binding: StoreBinding, input: unknown = {}, auth: RunOptions["auth"] = null): string | null {
  if (workflow.readableName) return workflow.readableName;
  const known = declared.get(workflow);
  if (known !== undefined) return known;
  let element: unknown;
  try {
    const index = new OutputIndex();
    element = workflow.build(createCtx({ runId: "", iteration: 0, iterations: {}, input, auth: auth ?? null, registry: binding.registry, index, nodeIteration: () => undefined }));
  } catch {
    return null;
  }
  const name = isFlowElement(element) && (element.type === Workflow || element.type === TAGS.workflow) && typeof element.props?.name === "string" ? (element.props.name as string) : null;
  declared.set(workflow, name);
  return name;
}
