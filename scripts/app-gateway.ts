/**
 * @module scripts/app-gateway
 * The Gateway of the app (`npm start`, the e2e tests): the app's workflows
 * (examples/app-workflows.tsx) bound to one SQLite file, the built app at `/` (`ui: true`)
 * and the console at `/console`. See docs/app.md "Start the app".
 *
 * The Node-only examples (shell tools, CLI agents) are not registered: each keeps its own
 * store, and a Gateway lists runs from one store.
 */
import { dirname } from "node:path";
import { bindWorkflows, Gateway, type GatewayOptions } from "durable-flow";
import { appWorkflows } from "../examples/app-workflows.js";

/**
 * A Gateway (not yet listening) with every app workflow registered on `dbPath`.
 * @example
 * const gateway = createAppGateway({ dbPath: ".flow/app/flow.db" });
 * await gateway.listen({ port: 7331, host: "127.0.0.1" });
 */
export function createAppGateway(opts: { dbPath: string; options?: GatewayOptions }): Gateway {
  const gateway = new Gateway({ ui: true, workspaceRoot: dirname(opts.dbPath), ...opts.options });
  for (const set of appWorkflows) for (const [key, workflow] of Object.entries(bindWorkflows(set, { dbPath: opts.dbPath }))) gateway.register(key, workflow);
  return gateway;
}
