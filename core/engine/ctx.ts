/**
 * @module core/engine/ctx
 * `FlowCtx`: what a build function sees. Reads come from the in-memory OutputIndex, so a
 * render never queries the database. See docs/engine.md, "The render context".
 */
import type { z } from "zod";
import type { OutputKey as OutputKeyName, OutputTarget, RowOf, SchemaMap } from "../components/index.js";
import { FlowError } from "../errors.js";
import type { AnyObjectSchema, SchemaRegistry } from "../schema/index.js";
import type { OutputIndex } from "./output-index.js";
import type { OutputKey, RunAuthContext, SafeParser } from "./types.js";

/** The run input as passed (not parsed by zod). */
export type InputOf<S extends SchemaMap> = S extends { input: infer I extends AnyObjectSchema } ? z.input<I> : Record<string, any>;

/**
 * The output of a finished run (`RunResult.output`): the last row of the schema map's `output`
 * table, without its keys; `unknown` when the map has none (then `WorkflowOptions.output` or
 * nothing names it).
 */
export type RunOutputOf<S extends SchemaMap> = S extends { output: infer O extends AnyObjectSchema } ? z.output<O> : unknown;

/** `ctx.outputs`: callable (`ctx.outputs("review")`) and property (`ctx.outputs.review`) forms. */
export type OutputsAccessor<S extends SchemaMap> = (<K extends OutputKeyName<S>>(key: K) => RowOf<S, K>[]) & {
  readonly [K in OutputKeyName<S>]: RowOf<S, K>[];
};

/** SPEC.md `FlowCtx`. `table` is a schema, table or schema key, never the SQL table name. */
export interface FlowCtx<S extends SchemaMap = SchemaMap> {
  readonly runId: string;
  /** Iteration of the loop running now (the first unfinished loop in tree order), else 0. */
  readonly iteration: number;
  /** Iteration of each loop by id. */
  readonly iterations: Readonly<Record<string, number | undefined>>;
  readonly input: InputOf<S>;
  readonly auth: RunAuthContext | null;
  readonly outputs: OutputsAccessor<S>;
  /** The row for `key`; throws OUTPUT_NOT_FOUND when it does not exist yet (see `outputMaybe`). */
  output<O extends OutputTarget<S>>(table: O, key: OutputKey): RowOf<S, O>;
  outputMaybe<O extends OutputTarget<S>>(table: O, key: OutputKey): RowOf<S, O> | undefined;
  /** The row of `nodeId` with the highest iteration. */
  latest<O extends OutputTarget<S>>(table: O, nodeId: string): RowOf<S, O> | undefined;
  /** Parses `value` (an array, or a JSON string of one) and keeps the items `parser` accepts. */
  latestArray<T>(value: unknown, parser: SafeParser<T>): T[];
  /** How many iterations of `nodeId` have an output row. */
  iterationCount<O extends OutputTarget<S>>(table: O, nodeId: string): number;
  /** The SQL table name of an output target. */
  resolveTableName<O extends OutputTarget<S>>(table: O): string;
  /** Like `outputMaybe`, but an omitted iteration means the latest one. */
  resolveRow<O extends OutputTarget<S>>(table: O, key: OutputKey): RowOf<S, O> | undefined;
}

export interface CtxInit {
  runId: string;
  iteration: number;
  iterations: Record<string, number>;
  input: unknown;
  auth: RunAuthContext | null;
  registry: SchemaRegistry;
  index: OutputIndex;
  /** Iteration of each node in the latest render: the default of `OutputKey.iteration`. */
  nodeIteration: (nodeId: string) => number | undefined;
}

/** Builds the context of one render. */
export function createCtx<S extends SchemaMap>(init: CtxInit): FlowCtx<S> {
  const { registry, index } = init;
  const keyOf = (table: unknown) => registry.resolve(table, "ctx").key;
  const iterationFor = (key: OutputKey) => key.iteration ?? init.nodeIteration(key.nodeId) ?? init.iteration;
  const outputMaybe = (table: unknown, key: OutputKey) => index.get(keyOf(table), key.nodeId, iterationFor(key));

  const outputs = ((key: string) => index.all(keyOf(key))) as unknown as OutputsAccessor<S>;
  for (const entry of registry.entries.values()) {
    if (entry.isInput) continue;
    Object.defineProperty(outputs, entry.key, { get: () => index.all(entry.key), enumerable: true });
  }

  const ctx: FlowCtx = {
    runId: init.runId,
    iteration: init.iteration,
    iterations: init.iterations,
    input: init.input as Record<string, unknown>,
    auth: init.auth,
    outputs: outputs as unknown as FlowCtx["outputs"],
    output(table, key) {
      const row = outputMaybe(table, key);
      if (!row) {
        throw new FlowError(
          "OUTPUT_NOT_FOUND",
          `No output yet for node "${key.nodeId}" (iteration ${iterationFor(key)}) in "${keyOf(table)}" of run ${init.runId}; use ctx.outputMaybe while it may not exist.`,
          { runId: init.runId, nodeId: key.nodeId, iteration: iterationFor(key) },
        );
      }
      return row as never;
    },
    outputMaybe: (table, key) => outputMaybe(table, key) as never,
    latest: (table, nodeId) => index.latest(keyOf(table), nodeId) as never,
    latestArray<T>(value: unknown, parser: SafeParser<T>): T[] {
      let v = value;
      if (typeof v === "string") {
        try {
          v = JSON.parse(v);
        } catch {
          return [];
        }
      }
      if (!Array.isArray(v)) return [];
      const out: T[] = [];
      for (const item of v) {
        const r = parser.safeParse(item);
        if (r.success) out.push(r.data);
      }
      return out;
    },
    iterationCount: (table, nodeId) => index.iterationCount(keyOf(table), nodeId),
    resolveTableName: (table) => registry.resolve(table, "ctx").tableName,
    resolveRow: (table, key) =>
      (key.iteration === undefined ? index.latest(keyOf(table), key.nodeId) : index.get(keyOf(table), key.nodeId, key.iteration)) as never,
  };
  return ctx as unknown as FlowCtx<S>;
}
