/**
 * @module node/tracing/otlp
 * OpenTelemetry export over OTLP/HTTP (JSON) for Node hosts (docs/tracing.md): a tracer
 * provider with a batch span processor and the OTLP/HTTP trace exporter. The SDK packages are
 * loaded only when tracing is turned on: by `createOtlpTracing`, or by a Node host env when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set.
 */
import type { RunTracing } from "../../core/tracing/index.js";

/** Where and how spans are sent; unset fields come from the standard `OTEL_EXPORTER_OTLP_*` variables. */
export interface OtlpTracingOptions {
  /** The traces URL (e.g. `http://127.0.0.1:4318/v1/traces`). Default: from the environment, else `http://localhost:4318/v1/traces`. */
  url?: string;
  headers?: Record<string, string>;
  /** `service.name` of the spans' resource (default `OTEL_SERVICE_NAME`, else `durable-flow`). */
  serviceName?: string;
}

/** A run tracing that exports, plus `shutdown` to flush and stop the exporter. */
export interface OtlpTracing extends RunTracing {
  shutdown(): Promise<void>;
}

/**
 * Makes a tracing that exports every run's spans over OTLP/HTTP; pass it as `tracing`.
 * @example
 * const tracing = await createOtlpTracing({ url: "http://127.0.0.1:4318/v1/traces" });
 * await runWorkflow(wf, { input, tracing });
 * await tracing.shutdown();
 */
export async function createOtlpTracing(options: OtlpTracingOptions = {}): Promise<OtlpTracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const exporter = new OTLPTraceExporter({ ...(options.url ? { url: options.url } : {}), ...(options.headers ? { headers: options.headers } : {}) });
  const serviceName = options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "durable-flow";
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": serviceName }), spanProcessors: [new BatchSpanProcessor(exporter)] });
  return {
    tracer: provider.getTracer("durable-flow"),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

let fromEnv: Promise<OtlpTracing> | undefined;

/**
 * The Node host's tracing: one exporter per process, made on first use, when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and
 * `OTEL_SDK_DISABLED` is not `true`); otherwise `undefined`, with nothing loaded.
 */
export function otlpTracingFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunTracing | undefined> {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? "")) return Promise.resolve(undefined);
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return Promise.resolve(undefined);
  fromEnv ??= createOtlpTracing();
  return fromEnv;
}
