/**
 * The workflows the app bundles into its engine worker: `flow-app-workflows` is an alias the
 * app's Vite config points at `examples/app-workflows.tsx`, or at the file named by
 * `FLOW_APP_WORKFLOWS` when the app is built (docs/app-browser.md "Your workflows").
 */
declare module "flow-app-workflows" {
  /** Every workflow set of the app. */
  export const appWorkflows: import("durable-flow/core").WorkflowSet[];
}
