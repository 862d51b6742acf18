/**
 * Type tests of `GatewayClient` (issue #26, "types that carry through"): `launchRun` typed from
 * the workflows the caller names, frames narrowed by `event` and run event payloads by `type`.
 * Checked by `tsc --noEmit` (part of `npm test`): each `@ts-expect-error` must fail to compile,
 * or tsc reports it as unused.
 */
import { z } from "zod";
import { createFlow } from "durable-flow";
import { GatewayClient, type WorkflowInputOf } from "durable-flow/gateway-client";

const api = createFlow(
  {
    input: z.object({ repo: z.string(), depth: z.number().optional() }),
    verdict: z.object({ ok: z.boolean() }),
  },
  { dbPath: ":memory:" },
);
const review = api.flow(() => api.Workflow({ name: "review", children: [] }));
const quiet = createFlow({ input: z.object({ note: z.string().optional() }) }, { dbPath: ":memory:" });
const ping = quiet.flow(() => quiet.Workflow({ name: "ping", children: [] }));
const workflows = { review, ping };

export async function typedLaunch(client: GatewayClient<typeof workflows>) {
  const { runId } = await client.launchRun({ workflow: "review", input: { repo: ".", depth: 2 }, runId: "r1", options: { maxConcurrency: 2 } });
  const id: string = runId;
  // Every field of ping's input is optional: so is the input.
  await client.launchRun({ workflow: "ping" });
  // @ts-expect-error: review's input needs `repo`
  await client.launchRun({ workflow: "review", input: {} });
  // @ts-expect-error: `repo` is a string
  await client.launchRun({ workflow: "review", input: { repo: 1 } });
  // @ts-expect-error: review has an input with a required field
  await client.launchRun({ workflow: "review" });
  // @ts-expect-error: `branch` is not a field of review's input
  await client.launchRun({ workflow: "review", input: { repo: ".", branch: "main" } });
  // @ts-expect-error: "deploy" is not a workflow of this client
  await client.launchRun({ workflow: "deploy", input: {} });
  const input: WorkflowInputOf<typeof review> = { repo: "." };
  // @ts-expect-error: WorkflowInputOf carries the schema
  const wrong: WorkflowInputOf<typeof review> = { repo: false };
  void [id, input, wrong];
}

export async function untypedLaunch(client: GatewayClient) {
  // Without named workflows, any key and any input object compile (the gateway checks them).
  await client.launchRun({ workflow: "anything", input: { x: 1 } });
  // @ts-expect-error: the workflow key is still required
  await client.launchRun({ input: {} });
}

export async function runEventFrames(client: GatewayClient) {
  for await (const f of client.streamRunEvents({ runId: "r1" })) {
    const seq: number = f.seq;
    if (f.payload.type === "AgentTextDelta") {
      const text: string = f.payload.text;
      void text;
    }
    if (f.payload.type === "TaskFailed") {
      const retry: boolean = f.payload.willRetry;
      void retry;
    }
    if (f.payload.type === "TaskStarted") {
      // @ts-expect-error: a TaskStarted event has no text
      void f.payload.text;
    }
    void seq;
  }
  for await (const f of client.streamDevTools({ runId: "r1" })) {
    const frameNo: number = f.payload.frameNo;
    void frameNo;
  }
}

export async function connectionFrames(client: GatewayClient) {
  const conn = await client.connect({ subscribe: [{ runId: "r1" }] });
  const run = await conn.request("getRun", { runId: "r1" });
  const status: string = run.status;
  // @ts-expect-error: getRun needs a runId
  await conn.request("getRun", {});
  for await (const f of conn.events()) {
    if (f.event === "run.event") {
      const runId: string = f.runId;
      const type: string = f.payload.type;
      void [runId, type];
    } else if (f.event === "run.gap_resync") {
      const resumed: number = f.payload.resumedAfterSeq;
      void resumed;
    } else if (f.event === "run.heartbeat") {
      const atMs: number = f.payload.atMs;
      void atMs;
    } else if (f.event === "ext.error") {
      const code: string = f.payload.code;
      void code;
    } else if (f.event === "ext.data") {
      const item: unknown = f.payload;
      // @ts-expect-error: an extension's item is unknown until checked
      void f.payload.anything;
      void [item, f.streamId];
    }
  }
  void status;
}
