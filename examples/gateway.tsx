/**
 * A Gateway with two workflows (docs/hosting.md "Gateway"): `greet` runs one task; `deploy`
 * waits for a signal `go`, which a GitHub-style webhook delivers. `main()` starts the gateway,
 * launches `greet` over HTTP RPC and follows its events over the WebSocket, then launches
 * `deploy` and delivers its signal through a signed webhook, and closes the gateway.
 *
 *   npx tsx examples/gateway.tsx                   # runs main() on a free port and exits
 *   PORT=7331 npx tsx examples/gateway.tsx --serve  # keeps serving: curl localhost:7331/health
 *
 * The store is `.flow/examples/gateway.db` (or `$FLOW_EXAMPLE_DB`).
 */
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";
import { z } from "zod";
import { createFlow, Gateway, signWebhookBody } from "durable-flow";

const { flow, Workflow, Task, Signal, outputs } = createFlow(
  {
    input: z.object({ name: z.string().optional(), service: z.string().optional() }),
    greeting: z.object({ text: z.string() }),
    release: z.object({ service: z.string(), sha: z.string() }),
  },
  { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/gateway.db" },
);

export const greet = flow((ctx) => (
  <Workflow name="greet">
    <Task id="hello" output={outputs.greeting}>{() => ({ text: `Hello, ${ctx.input.name ?? "world"}!` })}</Task>
  </Workflow>
));

export const deploy = flow((ctx) => (
  <Workflow name="deploy">
    <Signal id="go" schema={z.object({ sha: z.string() })}>
      {(push) => <Task id="release" output={outputs.release}>{() => ({ service: ctx.input.service ?? "api", sha: push.sha })}</Task>}
    </Signal>
  </Workflow>
));

const WEBHOOK_SECRET = process.env.GITHUB_WEBHOOK_SECRET ?? "example-secret";

/** The gateway of this example: both workflows, `deploy` also reachable as a webhook. */
export function exampleGateway(): Gateway {
  return new Gateway({ heartbeatMs: 5000 })
    .register("greet", greet)
    .register("deploy", deploy, { webhook: { secret: WEBHOOK_SECRET, signal: { name: "go", runIdPath: "client_payload.runId", payloadPath: "client_payload" } } });
}

async function rpc(url: string, method: string, params: unknown): Promise<any> {
  const body = await (await fetch(`${url}/v1/rpc/${method}`, { method: "POST", body: JSON.stringify(params) })).json();
  if (!body.ok) throw new Error(`${method}: ${body.error.code}: ${body.error.message}`);
  return body.result;
}

/** Follows a run's events over the WebSocket until it ends; resolves with the event types seen. */
function follow(wsUrl: string, runId: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    const types: string[] = [];
    ws.on("open", () => ws.send(JSON.stringify({ type: "connect", protocol: 1, subscribe: [{ runId, afterSeq: 0 }] })));
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === "error") reject(new Error(frame.error.message));
      if (frame.event !== "run.event") return;
      types.push(frame.payload.type);
      if (["RunFinished", "RunFailed", "RunCancelled"].includes(frame.payload.type)) {
        ws.close();
        resolve(types);
      }
    });
    ws.on("error", reject);
  });
}

export async function main(port = 0): Promise<{ greeting: unknown; release: unknown }> {
  const gateway = exampleGateway();
  const server = await gateway.listen({ port, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const { runId } = await rpc(url, "launchRun", { workflow: "greet", input: { name: "gateway" } });
    console.log("greet events:", (await follow(`${url.replace("http", "ws")}/`, runId)).join(" → "));
    const greeting = await rpc(url, "getNodeOutput", { runId, nodeId: "hello" });

    const launched = await rpc(url, "launchRun", { workflow: "deploy", input: { service: "billing" } });
    const events = follow(`${url.replace("http", "ws")}/`, launched.runId);
    const push = JSON.stringify({ event_type: "deploy", client_payload: { runId: launched.runId, sha: "4f2c9e1" } });
    const hook = await fetch(`${url}/webhooks/deploy`, { method: "POST", headers: { "x-hub-signature-256": signWebhookBody(WEBHOOK_SECRET, push), "x-github-delivery": crypto.randomUUID() }, body: push });
    console.log("webhook:", JSON.stringify((await hook.json()).result.signal));
    console.log("deploy events:", (await events).join(" → "));
    const release = await rpc(url, "getNodeOutput", { runId: launched.runId, nodeId: "release" });
    console.log("outputs:", JSON.stringify({ greeting, release }));
    return { greeting, release };
  } finally {
    await gateway.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv.includes("--serve")) {
    const server = await exampleGateway().listen({ port: Number(process.env.PORT ?? 7331) });
    console.log(`Gateway listening on`, server.address());
  } else await main();
}
