/**
 * @module node/agents/testing/provider-server
 * A local HTTP server that speaks the wire protocols of the hosted model APIs Flow's SDK agents
 * use: OpenAI chat completions (`POST …/chat/completions`), OpenAI Responses
 * (`POST …/responses`) and Anthropic Messages (`POST …/messages`), each as a JSON reply or as
 * server-sent events when the request asks to stream. Replies come from a script of turns, so
 * tests drive the real AI SDK providers through tool loops, structured output and errors.
 * Published as `durable-flow/testing` (node/testing/index.ts).
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One tool call the scripted model makes; the agent runs the tool named `name` with `args` and
 * sends its result back in the next request.
 * @example
 * const call: ScriptedToolCall = { id: "call_1", name: "lookup", args: { city: "Oslo" } };
 */
export interface ScriptedToolCall {
  /** The provider's call id (`call_…`, `toolu_…`); it comes back with the tool's result. */
  id: string;
  /** The tool's name as the agent registered it. */
  name: string;
  /** The arguments, JSON-encoded on the wire (streamed in pieces when the request streams). */
  args: unknown;
}

/**
 * One scripted model reply, consumed by one request in order: text (paced word by word with
 * `everyMs`), tool calls, a JSON object (structured output; Anthropic's forced `json` tool
 * when the request asks for it) or an HTTP error with the protocol's error body.
 * @example
 * const turns: ScriptedTurn[] = [
 *   { toolCalls: [{ id: "call_1", name: "lookup", args: { city: "Oslo" } }] },
 *   { text: "It is 21 °C in Oslo.", everyMs: 20 },
 *   { json: { city: "Oslo", tempC: 21 } },
 *   { status: 429, headers: { "retry-after": "1" }, message: "slow down" },
 * ];
 */
export type ScriptedTurn =
  /** `everyMs`: stream the text word by word, one word every `everyMs` (a model at work). */
  | { text: string; everyMs?: number }
  | { toolCalls: ScriptedToolCall[] }
  | { json: unknown }
  | { status: number; headers?: Record<string, string>; message?: string };

/**
 * A request the server received, in arrival order.
 * @example
 * expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: "tool" });
 */
export interface RecordedRequest {
  /** The request path, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (its shape is the protocol's: `messages`, `input`, `tools`, `stream`...). */
  body: any;
}

/**
 * A running provider server.
 * @example
 * const server = await startProviderServer([{ text: "hi" }]);
 * new HostedChatAgent({ model: "m", baseURL: server.url, apiKey: "k" });
 * await server.close();
 */
export interface ProviderServer {
  /** Base URL ending in `/v1` (`http://127.0.0.1:<port>/v1`), for the providers' `baseURL`. */
  url: string;
  /** Every request so far, oldest first. */
  requests: RecordedRequest[];
  /** Stops listening; resolves when the server has closed. */
  close(): Promise<void>;
}

/**
 * A server-sent event the server wrote, with when (the machine's clock, ms since the epoch).
 * @example
 * const server = await startProviderServer([{ text: "a b c", everyMs: 10 }], { onSend: (e) => sent.push(e) });
 */
export interface SentEvent {
  /** The request path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The SSE `event:` name, when the protocol uses one (Responses, Anthropic). */
  event?: string;
  /** The `data:` line as written (JSON text, or `[DONE]`). */
  data: string;
  /** `performance.timeOrigin + performance.now()` right after the write. */
  atMs: number;
}

/**
 * Options of {@link startProviderServer}.
 * @example
 * await startProviderServer(turns, { onSend: (e) => console.log(e.atMs, e.data) });
 */
export interface ProviderServerOptions {
  /** Called after each server-sent event is written (latency benchmarks time tokens from here). */
  onSend?: (event: SentEvent) => void;
}

const USAGE = { input: 11, output: 7 };

/**
 * Starts the server on 127.0.0.1 (random port); each request consumes the next turn (a request
 * past the script's end gets HTTP 500). Paths ending in `/chat/completions`, `/responses` and
 * `/messages` speak those protocols; a request with `stream: true` gets server-sent events.
 * @example
 * const server = await startProviderServer([{ text: "hello" }]);
 * const agent = new HostedChatAgent({ model: "m", baseURL: server.url, apiKey: "k" });
 */
export async function startProviderServer(turns: ScriptedTurn[], opts: ProviderServerOptions = {}): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    // A page's fetch (an agent in the browser's worker) comes cross-origin: answer its preflight
    // without consuming a turn, and allow the origin on every reply.
    if (req.headers.origin) res.setHeader("access-control-allow-origin", req.headers.origin);
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-methods": "POST, GET, OPTIONS", "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*", "access-control-max-age": "600" });
      return res.end();
    }
    const body = JSON.parse((await readBody(req)) || "{}");
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const turn = turns[requests.length - 1] ?? { status: 500, message: "the test script has no turn left" };
    const path = req.url ?? "";
    const protocol = path.endsWith("/messages") ? anthropic : path.endsWith("/responses") ? responses : path.endsWith("/chat/completions") ? chat : undefined;
    if (!protocol) return send(res, 404, { error: { message: `no route ${path}` } });
    if ("status" in turn) return send(res, turn.status, protocol.error(turn.message ?? `HTTP ${turn.status}`, turn.status), turn.headers);
    const reply = normalizeTurn(turn, protocol === anthropic && usesJsonTool(body));
    if (body.stream) return sse(res, protocol.events(reply, body.model), "everyMs" in turn ? turn.everyMs : undefined, opts.onSend && ((e) => opts.onSend!({ path, ...e })));
    return send(res, 200, protocol.json(reply, body.model));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Reply {
  text?: string;
  /** Word by word, paced (the SSE writer waits between events). */
  words?: boolean;
  toolCalls: ScriptedToolCall[];
}

interface Protocol {
  json(reply: Reply, model: string): unknown;
  events(reply: Reply, model: string): Array<{ event?: string; data: unknown }>;
  error(message: string, status: number): unknown;
}

function normalizeTurn(turn: Exclude<ScriptedTurn, { status: number }>, jsonTool: boolean): Reply {
  if ("toolCalls" in turn) return { toolCalls: turn.toolCalls };
  if ("text" in turn) return { text: turn.text, toolCalls: [], ...(turn.everyMs ? { words: true } : {}) };
  // Anthropic's provider asks for structured output through a forced `json` tool on models
  // without the native output format.
  return jsonTool ? { toolCalls: [{ id: "toolu_json", name: "json", args: turn.json }] } : { text: JSON.stringify(turn.json), toolCalls: [] };
}

function usesJsonTool(body: any): boolean {
  return Array.isArray(body.tools) && body.tools.some((t: any) => t.name === "json") && body.tool_choice?.name === "json";
}

const chat: Protocol = {
  json: (r, model) => ({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1767225600,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: r.text ?? null,
          ...(r.toolCalls.length ? { tool_calls: r.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })) } : {}),
        },
        finish_reason: r.toolCalls.length ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
  }),
  events: (r, model) => {
    const chunk = (delta: unknown, finish: string | null = null) => ({ data: { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1767225600, model, choices: [{ index: 0, delta, finish_reason: finish }] } });
    const out: Array<{ event?: string; data: unknown }> = [chunk({ role: "assistant", content: "" })];
    for (const piece of split(r.text, r.words)) out.push(chunk({ content: piece }));
    r.toolCalls.forEach((c, index) => {
      const args = JSON.stringify(c.args);
      out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
      for (const piece of split(args)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    out.push(chunk({}, r.toolCalls.length ? "tool_calls" : "stop"));
    out.push({ data: { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1767225600, model, choices: [], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output } } });
    out.push({ data: "[DONE]" });
    return out;
  },
  error: (message, status) => ({ error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: status === 429 ? "rate_limit_exceeded" : null } }),
};

const responsesUsage = { input_tokens: USAGE.input, output_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };

const responses: Protocol = {
  json: (r, model) => ({
    id: "resp_1",
    object: "response",
    created_at: 1767225600,
    model,
    status: "completed",
    incomplete_details: null,
    output: [
      ...(r.text !== undefined ? [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: r.text, annotations: [] }] }] : []),
      ...r.toolCalls.map((c, i) => ({ type: "function_call", id: `fc_${i}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" })),
    ],
    usage: responsesUsage,
  }),
  events: (r, model) => {
    const out: Array<{ event?: string; data: any }> = [];
    const push = (data: any) => out.push({ event: data.type, data: { ...data, sequence_number: out.length } });
    push({ type: "response.created", response: { id: "resp_1", created_at: 1767225600, model } });
    let index = 0;
    if (r.text !== undefined) {
      push({ type: "response.output_item.added", output_index: index, item: { type: "message", id: "msg_1" } });
      for (const piece of split(r.text, r.words)) push({ type: "response.output_text.delta", item_id: "msg_1", delta: piece });
      push({ type: "response.output_item.done", output_index: index++, item: { type: "message", id: "msg_1" } });
    }
    for (const c of r.toolCalls) {
      const id = `fc_${index}`;
      const args = JSON.stringify(c.args);
      push({ type: "response.output_item.added", output_index: index, item: { type: "function_call", id, call_id: c.id, name: c.name, arguments: "" } });
      for (const piece of split(args)) push({ type: "response.function_call_arguments.delta", item_id: id, output_index: index, delta: piece });
      push({ type: "response.output_item.done", output_index: index++, item: { type: "function_call", id, call_id: c.id, name: c.name, arguments: args, status: "completed" } });
    }
    push({ type: "response.completed", response: { usage: responsesUsage, incomplete_details: null } });
    return out;
  },
  error: chat.error,
};

const anthropic: Protocol = {
  json: (r, model) => ({
    id: "msg_1",
    type: "message",
    role: "assistant",
    model,
    content: [...(r.text !== undefined ? [{ type: "text", text: r.text }] : []), ...r.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args }))],
    stop_reason: r.toolCalls.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
  }),
  events: (r, model) => {
    const out: Array<{ event?: string; data: any }> = [];
    const push = (data: any) => out.push({ event: data.type, data });
    push({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: USAGE.input, output_tokens: 0 } } });
    let index = 0;
    if (r.text !== undefined) {
      push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of split(r.text, r.words)) push({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
      push({ type: "content_block_stop", index: index++ });
    }
    for (const c of r.toolCalls) {
      push({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
      for (const piece of split(JSON.stringify(c.args))) push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      push({ type: "content_block_stop", index: index++ });
    }
    push({ type: "message_delta", delta: { stop_reason: r.toolCalls.length ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: USAGE.output } });
    push({ type: "message_stop" });
    return out;
  },
  error: (message, status) => ({ type: "error", error: { type: status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : "api_error", message } }),
};

/** Splits a text into a few pieces (or into words), as a real stream would deliver it. */
function split(text: string | undefined, words = false): string[] {
  if (!text) return [];
  if (words) return text.match(/\S+\s*/g) ?? [text];
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>, everyMs?: number, onSend?: (e: Omit<SentEvent, "path">) => void): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const e of events) {
    if (res.destroyed) return;
    const data = typeof e.data === "string" ? e.data : JSON.stringify(e.data);
    res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${data}\n\n`);
    onSend?.({ ...(e.event ? { event: e.event } : {}), data, atMs: performance.timeOrigin + performance.now() });
    if (everyMs) await new Promise((r) => setTimeout(r, everyMs));
  }
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
