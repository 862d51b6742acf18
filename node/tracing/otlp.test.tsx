/**
 * OpenTelemetry export (docs/tracing.md): a run with an SDK agent (the real AI SDK OpenAI
 * provider against the scripted provider server) making a tool call is exported over OTLP/HTTP
 * to a real loopback receiver, which decodes the JSON it gets; the span tree, names, parent
 * links and `gen_ai.*` attributes are checked against the published semantic conventions.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { createFlow, createOtlpTracing, defineTool, HostedChatAgent, read, runWorkflow } from "durable-flow";
import { startProviderServer } from "../agents/testing/provider-server.js";
import type { ProviderServer } from "../agents/testing/provider-server.js";

interface OtlpValue { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: OtlpValue[] } }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; status?: { code?: number; message?: string }; attributes: { key: string; value: OtlpValue }[] }
interface Received { path: string; contentType: string | undefined; spans: OtlpSpan[]; serviceName: string | undefined }

/** A loopback OTLP/HTTP receiver: decodes each JSON `ExportTraceServiceRequest` it is sent. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of body.resourceSpans) {
        const serviceName = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
        received.push({ path: req.url ?? "", contentType: req.headers["content-type"], serviceName, spans: rs.scopeSpans.flatMap((s) => s.spans) });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/traces`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function attrs(span: OtlpSpan): Record<string, unknown> {
  const value = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values.map(value);
  return Object.fromEntries(span.attributes.map((a) => [a.key, value(a.value)]));
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => void (await Promise.all(closers.map((c) => c()))));

const lookup = defineTool({ name: "lookup", schema: z.object({ city: z.string() }), execute: () => ({ tempC: 21 }) });
const schemas = { input: z.object({}), weather: z.object({ city: z.string(), tempC: z.number() }) };

describe("OpenTelemetry over OTLP/HTTP", () => {
  it("exports run → task attempt → invoke_agent → execute_tool spans with gen_ai attributes when a run has tracing", async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const provider: ProviderServer = await startProviderServer([
      { toolCalls: [{ id: "call_1", name: "lookup", args: { city: "Oslo" } }, { id: "call_2", name: "read", args: { path: "../../../etc/passwd" } }] },
      { text: '{"city":"Oslo","tempC":21}' },
    ]);
    closers.push(provider.close);
    const dir = mkdtempSync(join(tmpdir(), "flow-otel-"));
    const { flow, Workflow, Task, outputs } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="weather">
        <Task id="ask" output={outputs.weather} agent={new HostedChatAgent({ id: "forecaster", model: "gpt-4o-mini", baseURL: provider.url, apiKey: "k", api: "chat", tools: { lookup, read } })} retries={0}>
          Weather in Oslo?
        </Task>
      </Workflow>
    ));
    const tracing = await createOtlpTracing({ url: receiver.url, serviceName: "flow-test" });
    const result = await runWorkflow(wf, { input: {}, rootDir: dir, tracing, prices: { "gpt-4o-mini": { input: 1, output: 2 } } });
    await tracing.shutdown();
    expect(result.status).toBe("finished");

    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received[0]).toMatchObject({ path: "/v1/traces", contentType: "application/json", serviceName: "flow-test" });
    const spans = receiver.received.flatMap((r) => r.spans);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    expect(spans.map((s) => s.name).sort()).toEqual(["execute_tool lookup", "execute_tool read", "invoke_agent forecaster", "run weather", "task ask"]);
    const [run] = byName("run weather");
    const [task] = byName("task ask");
    const [gen] = byName("invoke_agent forecaster");
    const [tool] = byName("execute_tool lookup");
    // One trace, linked run → attempt → generation → tool call.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(run!.parentSpanId ?? "").toBe("");
    expect(task!.parentSpanId).toBe(run!.spanId);
    expect(gen!.parentSpanId).toBe(task!.spanId);
    expect(tool!.parentSpanId).toBe(gen!.spanId);
    // Children sit inside their parents in time.
    for (const [p, c] of [[run!, task!], [task!, gen!], [gen!, tool!]] as const) {
      expect(BigInt(c.startTimeUnixNano) >= BigInt(p.startTimeUnixNano)).toBe(true);
      expect(BigInt(c.endTimeUnixNano) <= BigInt(p.endTimeUnixNano)).toBe(true);
    }

    expect(attrs(run!)).toMatchObject({ "flow.run.id": result.runId, "flow.workflow.name": "weather", "flow.run.status": "finished" });
    expect(attrs(task!)).toMatchObject({ "flow.run.id": result.runId, "flow.node.id": "ask", "flow.iteration": 0, "flow.attempt": 1 });
    const g = attrs(gen!);
    expect(g).toMatchObject({
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: semconv.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      [semconv.ATTR_GEN_AI_SYSTEM]: "openai",
      [semconv.ATTR_GEN_AI_AGENT_ID]: "forecaster",
      [semconv.ATTR_GEN_AI_REQUEST_MODEL]: "gpt-4o-mini",
      "flow.run.id": result.runId,
      "flow.node.id": "ask",
      "flow.attempt": 1,
      "flow.generation": 1,
    });
    expect(gen!.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(g[semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS]).toBeGreaterThan(0);
    expect(g[semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]).toBeGreaterThan(0);
    expect(g["flow.cost_usd"]).toBeGreaterThan(0);
    expect(attrs(tool!)).toMatchObject({
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [semconv.ATTR_GEN_AI_TOOL_NAME]: "lookup",
      [semconv.ATTR_GEN_AI_TOOL_CALL_ID]: "call_1",
      [semconv.ATTR_GEN_AI_TOOL_TYPE]: "function",
      "flow.run.id": result.runId,
    });
    expect(tool!.status?.code ?? 0).not.toBe(2);
    // The refused sandbox escape is an error span carrying the refusal's FlowError code.
    const [refused] = byName("execute_tool read");
    expect(refused!.parentSpanId).toBe(gen!.spanId);
    expect(refused!.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(String(attrs(refused!)["error.type"])).toMatch(/^TOOL_/);
  });

  it("exports a flow up run's spans to OTEL_EXPORTER_OTLP_ENDPOINT, named by OTEL_SERVICE_NAME, before the process exits", async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const { code, stderr } = await flowUp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace("/v1/traces", ""), OTEL_SERVICE_NAME: "flow-env" });
    expect(code, stderr).toBe(0);
    const spans = receiver.received.flatMap((r) => r.spans);
    expect(spans.map((s) => s.name).sort()).toEqual(["run traced", "task step"]);
    expect(receiver.received[0]).toMatchObject({ path: "/v1/traces", serviceName: "flow-env" });
    const run = spans.find((s) => s.name === "run traced")!;
    expect(spans.find((s) => s.name === "task step")!.parentSpanId).toBe(run.spanId);
    expect(attrs(run)["flow.run.status"]).toBe("finished");
  }, 60_000);

  it("loads no OpenTelemetry package when tracing is off (and the refusing hook bites when it is on)", async () => {
    const refuse = ["--import", join(ROOT, "node/tracing/fixtures/refuse-otel.mjs")];
    const off = await flowUp({}, refuse);
    expect(off.code, off.stderr).toBe(0);
    const on = await flowUp({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }, refuse);
    expect(on.code).not.toBe(0);
    expect(on.stderr).toContain("OpenTelemetry loaded: @opentelemetry/");
  }, 90_000);
});

/** `flow up` of the one-task fixture in a scratch directory, OTEL_* variables cleared unless given. */
async function flowUp(env: Record<string, string>, nodeArgs: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "flow-otel-env-"));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, "node/cli/bin.mjs"), "up", join(ROOT, "node/tracing/fixtures/traced-workflow.tsx"), "--input", "{}", "--log-dir", "none", "--quiet"], {
    cwd: dir,
    env: { ...inherited, FLOW_TEST_DB: join(dir, "flow.db"), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, stderr };
}
