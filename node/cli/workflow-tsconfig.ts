/**
 * @module node/cli/workflow-tsconfig
 * The tsconfig tsx compiles workflow files with in this `flow` process: node/cli/bin.mjs names
 * it when it registers tsx, and the loader (node/cli/load-workflow.ts) bundles, with Flow's JSX,
 * the JSX files it leaves out. Its own module so that commands that load no workflow file do not
 * load the loader.
 */

let registered: string | undefined;

/**
 * Names the tsconfig tsx was registered with (node/cli/bin.mjs, once).
 * @example
 * useWorkflowTsconfig("/home/me/project/tsconfig.json");
 */
export function useWorkflowTsconfig(path: string): void {
  registered = path;
}

/** The tsconfig tsx compiles workflow files with; undefined where no `flow` command registered one (the API, tests). */
export function workflowTsconfig(): string | undefined {
  return registered;
}
