/**
 * @module node/cli/load-workflow
 * Loads a workflow file: its default export (or an export named `workflow`) must be a workflow
 * made by `flow(...)`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FlowWorkflow } from "../../core/engine/types.js";
import { FlowError } from "../../core/errors.js";

export async function loadWorkflow(file: string, cwd: string): Promise<{ workflow: FlowWorkflow; path: string }> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new FlowError("INVALID_ARGUMENT", `Workflow file ${path} does not exist.`, { path });
  const mod = (await import(pathToFileURL(path).href)) as { default?: unknown; workflow?: unknown };
  const workflow = (mod.default ?? mod.workflow) as FlowWorkflow | undefined;
  if (!workflow || typeof workflow !== "object" || typeof workflow.build !== "function") {
    throw new FlowError("INVALID_ARGUMENT", `${path} must export default a workflow made with flow(...) (from createFlow).`, { path });
  }
  return { workflow, path };
}
