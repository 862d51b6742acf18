/**
 * @module node/cli
 * The `flow` CLI: its commands, loading a workflow file, progress and transcript printing.
 */
export { loadWorkflow } from "./load-workflow.js";
