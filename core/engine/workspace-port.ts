/**
 * @module core/engine/workspace-port
 * Ports the engine calls for what only a host with a file system can do: give a subtree its
 * own working directory (a git worktree or a sandbox copy), and watch a workflow file for hot
 * reload. Node implements them (node/workspace/, node/hot/); where they are absent, Worktree
 * and Sandbox fail with NOT_IMPLEMENTED and `hot` is ignored with a warning.
 */
import type { FlowNode } from "../jsx/index.js";
import type { FlowWorkflow } from "./types.js";

/** A working directory a subtree's tasks run in. */
export interface WorkspaceSpec {
  kind: "worktree" | "sandbox";
  runId: string;
  /** The Worktree/Sandbox id (unique in the workflow). */
  id: string;
  /** The run's root directory (`RunOptions.rootDir`, default the process's working directory). */
  rootDir: string;
  /** Worktree: where to put it (default `<rootDir>/.flow/worktrees/<runId>/<id>`). */
  path?: string;
  /** Worktree: branch to create or check out (default `flow/<runId>/<id>`). */
  branch?: string;
  /** Worktree: what a new branch starts from (default the current HEAD). */
  baseBranch?: string;
  /** Sandbox: directory copied into the sandbox (default: nothing; an empty directory). */
  from?: string;
}

export interface PreparedWorkspace {
  path: string;
  branch?: string;
}

export interface WorkspacePort {
  /** Creates the workspace, or returns it when it exists already (idempotent across resumes). */
  prepare(spec: WorkspaceSpec): Promise<PreparedWorkspace>;
}

/** A new build of a workflow file, loaded after an edit (hot reload). */
export interface HotBuild {
  build: (ctx: any) => FlowNode;
  generation: number;
}

export interface HotReloadPort {
  /**
   * Watches `workflowPath` (and what it imports) and calls `onBuild` with each new build.
   * Returns a function that stops watching.
   */
  watch(
    workflowPath: string,
    options: { rootDir?: string; outDir?: string; maxGenerations: number; debounceMs: number; workflow?: FlowWorkflow },
    onBuild: (build: HotBuild) => void, onError: (error: unknown) => void): () => void;
}
