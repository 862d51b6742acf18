/**
 * @module node/agents/cli/harness-rpc
 * The RPC conversation of the Pi-family CLIs (variants 5 and 6, `--mode rpc`): JSON lines in
 * both directions over stdin/stdout (CLI-AGENTS.md "V5" and "V6"). Flow sends the prompt
 * (after `ready` and a `get_state` for variant 6), answers extension UI requests through the
 * agent's handler, and ends the conversation when the agent is done; the base then stops the
 * process group.
 */
import { randomUUID } from "node:crypto";
import { FlowError } from "../../../core/errors.js";
import type { CliDriver } from "./cli-types.js";
import { jsonLine } from "./cli-types.js";

/** An extension UI request the CLI sends in RPC mode (SPEC.md variant 5). */
export interface ExtensionUiRequest {
  type: "extension_ui_request";
  id: string;
  method: string;
  title?: string;
  placeholder?: string;
  [extra: string]: unknown;
}

/** The reply Flow sends for an extension UI request. */
export interface ExtensionUiResponse {
  type: "extension_ui_response";
  id: string;
  value?: unknown;
  cancelled?: boolean;
}

/** Answers a UI request: a value, or null to cancel. */
export type ExtensionUiHandler = (request: ExtensionUiRequest) => unknown | Promise<unknown>;

/** Methods that block the agent until answered. */
const BLOCKING_METHODS = new Set(["select", "confirm", "input", "editor"]);

export interface HarnessRpcOptions {
  prompt: string;
  /** Wait for `{"type":"ready"}` and send `get_state` first (variant 6). */
  handshake: boolean;
  done(): boolean;
  onExtensionUiRequest?: ExtensionUiHandler;
}

/**
 * The driver of one RPC prompt.
 * @example
 * const driver = harnessRpcDriver({ prompt, handshake: false, done: () => interpreter.done() });
 */
export function harnessRpcDriver(options: HarnessRpcOptions): CliDriver {
  return async (proc, lines) => {
    const send = (message: Record<string, unknown>) => proc.writeLine(JSON.stringify(message));
    const sendPrompt = () => send({ id: randomUUID(), type: "prompt", message: options.prompt });
    if (!options.handshake) sendPrompt();
    for await (const line of lines) {
      const j = jsonLine(line);
      if (!j) continue;
      if (j.type === "ready" && options.handshake) {
        send({ id: randomUUID(), type: "get_state" });
        sendPrompt();
      } else if (j.type === "extension_ui_request" && BLOCKING_METHODS.has(String(j.method))) {
        const value = options.onExtensionUiRequest ? await options.onExtensionUiRequest(j as ExtensionUiRequest) : null;
        const reply: ExtensionUiResponse = value === null || value === undefined ? { type: "extension_ui_response", id: String(j.id), cancelled: true } : { type: "extension_ui_response", id: String(j.id), value };
        send(reply as unknown as Record<string, unknown>);
      }
      if (options.done()) break;
    }
    proc.closeStdin();
  };
}

/**
 * Checks the `@file` arguments of a Pi-family call: none in rpc mode (`AGENT_RPC_FILE_ARGS`,
 * before anything is spawned), and each a non-empty string.
 */
export function checkFileArgs(agent: string, mode: string, files: unknown[]): void {
  if (mode === "rpc" && files.length) {
    throw new FlowError("AGENT_RPC_FILE_ARGS", `${agent}: rpc mode does not support file arguments; put the file paths in the prompt or use mode "json".`, { agent, files });
  }
  for (const f of files) if (typeof f !== "string" || f === "") throw new FlowError("AGENT_CONFIG_INVALID", `${agent}: file arguments must be non-empty strings.`, { agent });
}
