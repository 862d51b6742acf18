/**
 * The Gateway's `tracing` option traces every run it hosts (docs/tracing.md), through the real
 * OpenTelemetry SDK (an in-memory exporter stands in for the network, which otlp.test.tsx covers).
 */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createFlow, FlowDb, Gateway } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { until } from "../server/gateway-testing.js";

describe("Gateway tracing", () => {
  it("traces the runs a Gateway hosts with the tracer of its tracing option", async () => {
    const dir = tempDir("flow-gw-tracing-");
    const { flow, Workflow, Task, outputs, db } = createFlow({ step: z.object({ ok: z.boolean() }) }, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="hosted">
        <Task id="step" output={outputs.step}>
          {() => ({ ok: true })}
        </Task>
      </Workflow>
    ));
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const gateway = new Gateway({ workspaceRoot: dir, tracing: { tracer: provider.getTracer("gateway-test") } });
    gateway.register("hosted", wf);
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workflow: "hosted", input: {}, runId: "t1" }) });
      expect(res.status).toBe(200);
      await until(() => new FlowDb(db).getRun("t1"), (r) => r?.status === "finished", "run t1 to finish");
      await until(async () => exporter.getFinishedSpans(), (spans) => spans.some((s) => s.name === "run hosted"), "the run span");
      const spans = exporter.getFinishedSpans();
      const run = spans.find((s) => s.name === "run hosted")!;
      const task = spans.find((s) => s.name === "task step")!;
      expect(run.attributes).toMatchObject({ "flow.run.id": "t1", "flow.run.status": "finished" });
      expect(task.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(task.attributes).toMatchObject({ "flow.run.id": "t1", "flow.node.id": "step", "flow.attempt": 1 });
    } finally {
      await gateway.close();
      await provider.shutdown();
    }
  }, 60_000);
});
