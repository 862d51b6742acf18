/**
 * @module node/server/workflow-paths
 * Workflows by file path for `startServer`: a path is resolved against `rootDir` (never
 * outside it: WORKFLOW_PATH_OUTSIDE_ROOT, symlinks included) and loaded the way the CLI loads
 * files (node/cli/load-workflow.ts). The key of a workflow is its path relative to `rootDir`,
 * so one file is one workflow however it is spelled.
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { FlowWorkflow } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import { loadWorkflow } from "../cli/index.js";

/**
 * The key (path relative to `rootDir`, `/`-separated) of a workflow path; throws
 * WORKFLOW_PATH_OUTSIDE_ROOT for a path that leaves `rootDir`.
 * @example
 * workflowKeyOfPath("/srv/flows", "review.tsx"); // "review.tsx"
 */
export function workflowKeyOfPath(rootDir: string, path: string): string {
  const root = realpathSync(rootDir);
  const full = resolve(root, path);
  const real = existsSync(full) ? realpathSync(full) : full;
  const rel = relative(root, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
    throw new FlowError("WORKFLOW_PATH_OUTSIDE_ROOT", `The workflow path ${path} is outside the server's rootDir ${root}; put the file under rootDir or start the server with another rootDir.`, { path, rootDir: root });
  }
  return rel.split(sep).join("/");
}

/**
 * A loader of workflows by path under `rootDir` (for `LocalGatewayHost.loadWorkflow`).
 * @example
 * const host = new LocalGatewayHost({ loadWorkflow: workflowPathLoader("/srv/flows") });
 */
export function workflowPathLoader(rootDir: string): (key: string) => Promise<FlowWorkflow | undefined> {
  return async (key) => {
    const rel = workflowKeyOfPath(rootDir, key);
    const full = resolve(realpathSync(rootDir), rel);
    if (!existsSync(full)) return undefined;
    return (await loadWorkflow(full, rootDir)).workflow;
  };
}
