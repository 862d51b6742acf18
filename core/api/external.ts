/**
 * @module core/api/external
 * Workflows whose build function is not JSX (SPEC.md `createExternalFlow`): a pure function of
 * a JSON context (`SerializedCtx`) returning a host tree as JSON (`HostNodeJson`), for example
 * from another language over a pipe. The JSON tree is turned into the same elements JSX makes.
 *
 * Host JSON conventions (docs/components.md): tags are the built-in host tags (`flow:task`,
 * `flow:sequence`, ...); `props` hold strings, `rawProps` typed values that win over `props`;
 * a task's `output` is a schema key, its `agent` an id of `ExternalConfig.agents`, its text
 * children the prompt, and `rawProps.payload` a static row.
 */
import type { AgentLike } from "../agents/index.js";
import type { SchemaMap } from "../components/index.js";
import type { FlowCtx } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { createElement, type FlowNode } from "../jsx/index.js";
import type { HostNodeJson } from "../jsx/index.js";
import { TAGS } from "../protocol.js";

/** SPEC.md `SerializedCtx`. */
export interface SerializedCtx {
  runId: string;
  iteration: number;
  iterations: Record<string, number>;
  input: unknown;
  /** Table key to the run's rows. */
  outputs: Record<string, Array<Record<string, unknown>>>;
}

/** SPEC.md `ExternalConfig`. */
export interface ExternalConfig<S extends SchemaMap = SchemaMap> {
  schemas: S;
  agents: Record<string, AgentLike>;
  /** Pure: the same context must give the same tree. */
  buildFn: (ctx: SerializedCtx) => HostNodeJson;
  dbPath?: string;
}

const NUMERIC = new Set(["retries", "timeoutMs", "heartbeatTimeoutMs", "maxConcurrency", "maxIterations"]);
const BOOLEAN = new Set(["skipIf", "continueOnFail", "noRetry", "until", "if", "cache", "needsApproval"]);

/** Builds the JSX-equivalent build function of an external workflow. */
export function externalBuild<S extends SchemaMap>(config: ExternalConfig<S>): (ctx: FlowCtx<S>) => FlowNode {
  const keys = Object.keys(config.schemas).filter((k) => k !== "input");
  return (ctx) => {
    const serialized: SerializedCtx = {
      runId: ctx.runId,
      iteration: ctx.iteration,
      iterations: Object.fromEntries(Object.entries(ctx.iterations).filter((e): e is [string, number] => e[1] !== undefined)),
      input: ctx.input,
      outputs: Object.fromEntries(keys.map((k) => [k, (ctx.outputs as (k: string) => Array<Record<string, unknown>>)(k)])),
    };
    return toElement(config.buildFn(serialized), config.agents);
  };
}

function toElement(node: HostNodeJson, agents: Record<string, AgentLike>): FlowNode {
  if (node.kind === "text") return node.text;
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node.props ?? {})) props[k] = coerce(k, v);
  Object.assign(props, node.rawProps ?? {});
  if (node.tag === TAGS.task) {
    if (typeof props.agent === "string") props.agent = agentById(agents, props.agent);
    if (Array.isArray(props.agent)) props.agent = props.agent.map((a) => (typeof a === "string" ? agentById(agents, a) : a));
    const payload = props.payload;
    delete props.payload;
    const text = node.children.map((c) => (c.kind === "text" ? c.text : "")).join("");
    props.children = payload ?? text;
    return createElement(node.tag, props);
  }
  if (node.tag === TAGS.branch) {
    return createElement(TAGS.branch, { ...props, children: node.children.map((c) => toElement(c, agents)) });
  }
  props.children = node.children.map((c) => toElement(c, agents));
  return createElement(node.tag, props);
}

function coerce(key: string, value: string): unknown {
  if (NUMERIC.has(key)) return Number(value);
  if (BOOLEAN.has(key)) return value === "true";
  if (key === "dependsOn") return value.split(",").map((s) => s.trim()).filter(Boolean);
  return value;
}

function agentById(agents: Record<string, AgentLike>, id: string): AgentLike {
  const agent = agents[id];
  if (!agent) throw new FlowError("RENDER_FAILED", `External workflow names agent "${id}", which ExternalConfig.agents does not have (${Object.keys(agents).join(", ") || "none"}).`, { agent: id });
  return agent;
}
