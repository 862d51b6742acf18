/**
 * `npm start`: the app. Starts a Gateway on the embedded SQLite store (`.flow/app/flow.db`)
 * with the app's workflows (examples/app-workflows.tsx) and prints its URL.
 * (First cut: serving the built app at `/` and `/console` lands with issue #13.)
 *
 *   PORT=7331 npx tsx scripts/start-app.ts
 */
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { bindWorkflows, Gateway } from "durable-flow";
import { appWorkflows } from "../examples/app-workflows.js";

const dbPath = process.env.FLOW_APP_DB ?? ".flow/app/flow.db";
mkdirSync(".flow/app", { recursive: true });
const gateway = new Gateway();
for (const set of appWorkflows) for (const [key, workflow] of Object.entries(bindWorkflows(set, { dbPath }))) gateway.register(key, workflow);
const server = await gateway.listen({ port: Number(process.env.PORT ?? 7331), host: process.env.HOST ?? "127.0.0.1" });
const { port } = server.address() as AddressInfo;
console.log(`Flow is running at http://127.0.0.1:${port}/`);
const stop = () => void gateway.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
