/**
 * @module core/tracing
 * Run tracing: the tracer port the engine reports spans to (node/tracing exports them as OTLP).
 */
export { startRunTracer } from "./run-tracer.js";
export type { RunTracing } from "./run-tracer.js";
