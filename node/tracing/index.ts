/**
 * @module node/tracing
 * Tracing for Node: exporting run spans over OTLP.
 */
export { createOtlpTracing, otlpTracingFromEnv } from "./otlp.js";
export type { OtlpTracing, OtlpTracingOptions } from "./otlp.js";
