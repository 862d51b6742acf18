/**
 * `npm start`: the app. Builds it when its sources are newer than `dist/app/`
 * (scripts/app-build.ts), then starts a Gateway on the embedded SQLite store
 * (`.flow/app/flow.db`, or `FLOW_APP_DB`) with the app's workflows, serving the app at `/` and
 * the console at `/console`, and prints the URL. See docs/app.md.
 *
 *   npm start                       # http://127.0.0.1:7331/
 *   PORT=8080 HOST=0.0.0.0 npm start
 */
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { ensureAppBuilt } from "./app-build.js";
import { untilStopSignal } from "../node/server/stop-signals.js";
import { createAppGateway } from "./app-gateway.js";

const dbPath = resolve(process.env.FLOW_APP_DB ?? ".flow/app/flow.db");
const port = Number(process.env.PORT ?? 7331);
const host = process.env.HOST ?? "127.0.0.1";

try {
  const built = await ensureAppBuilt({ log: console.log });
  if (built.status === "built") console.log(`Built the app into dist/app in ${(built.ms / 1000).toFixed(1)} s.`);
} catch (error) {
  // The API still serves; the pages show the last good build, or say how to build one.
  console.error(`${(error as Error).message}\nStarting anyway with the last build of the app (if any); fix the error and run npm run build:app.`);
}
mkdirSync(dirname(dbPath), { recursive: true });
const gateway = createAppGateway({ dbPath });
try {
  const server = await gateway.listen({ port, host });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  console.log(`Flow is running at http://${shown}:${bound}/`);
  console.log(`  console: http://${shown}:${bound}/console   store: ${dbPath}   stop: Ctrl+C`);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(`Port ${port} is in use (another npm start?). Stop it, or pick another port: PORT=${port + 1} npm start`);
    process.exit(1);
  }
  throw error;
}
await untilStopSignal(() => gateway.close({ runs: "pause" }), () => console.log("Pausing runs, one moment..."));
process.exit(0);
