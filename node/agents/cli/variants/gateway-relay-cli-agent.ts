/**
 * @module node/agents/cli/variants/gateway-relay-cli-agent
 * Variant 12 (gateway-backed): OpenClaw, `openclaw agent`, engine `openclaw`
 * (CLI-AGENTS.md "V12"). The CLI routes the turn through the OpenClaw gateway (falling back to
 * its embedded agent) and prints one JSON object whose shape is not pinned: the answer and the
 * session id are looked up under several names.
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter } from "../cli-types.js";
import { flag, jsonLine, opt, plainTextInterpreter } from "../cli-types.js";

/**
 * Options of {@link GatewayRelayCliAgent} (SPEC.md variant 12).
 * @example
 * const opts: GatewayRelayCliAgentOptions = { agent: "main", workspace: "/srv/ops" };
 */
export interface GatewayRelayCliAgentOptions extends BaseCliAgentOptions {
  /** OpenClaw agent id (`--agent`); the model comes from that agent's configuration. */
  agent?: string;
  /** Session id (a per-call `resumeSession` wins). */
  session?: string;
  /** Default: the working directory. */
  workspace?: string;
  /** `--json` (default true); false reads stdout as text. */
  json?: boolean;
  continueSession?: boolean;
}

const ANSWER_KEYS = ["text", "reply", "answer", "message", "output", "content", "payloads", "payload"];
const SESSION_KEYS = ["sessionId", "session_id", "session"];

/**
 * OpenClaw as a Flow agent.
 * @example
 * import { GatewayRelayCliAgent } from "durable-flow";
 * const claw = new GatewayRelayCliAgent({ agent: "ops" });
 */
export class GatewayRelayCliAgent extends BaseCliAgent<GatewayRelayCliAgentOptions> {
  readonly engine = "openclaw" as const;

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const session = call.resumeSession ?? o.session;
    const json = o.json !== false;
    const args = [
      "agent",
      ...opt("--agent", o.agent),
      ...opt("--session-id", session),
      ...flag("--continue", o.continueSession === true || call.options.continueSession === true),
      "--workspace",
      o.workspace ?? call.cwd,
      ...flag("--json", json),
      ...(o.extraArgs ?? []),
      "--message",
      call.promptWithSystem,
    ];
    return { command: "openclaw", args, interpreter: json ? relayInterpreter() : plainTextInterpreter(), ...(session ? { sessionId: session } : {}) };
  }
}

function relayInterpreter(): CliInterpreter {
  const lines: string[] = [];
  return {
    onLine: (line) => void lines.push(line),
    finish() {
      const j = jsonLine(lines.join("\n"));
      if (!j) return {};
      const answer = findAnswer(j) ?? (j.result && typeof j.result === "object" ? findAnswer(j.result) : undefined);
      const sessionId = [j, j.meta, j.result, j.result?.meta, j.data].map(findSession).find((s) => s !== undefined);
      const failed = j.status === "error" || j.ok === false;
      return { ...(answer !== undefined ? { answer } : {}), ...(sessionId ? { sessionId } : {}), ...(failed ? { ok: false, error: String(j.error?.message ?? j.error ?? "the gateway reported an error") } : {}) };
    },
  };
}

function findAnswer(o: Record<string, any>): string | undefined {
  for (const k of ANSWER_KEYS) {
    const v = o[k];
    const text = textOf(v);
    if (text) return text;
  }
  return undefined;
}

function textOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map((p) => textOf(p) ?? "").join("") || undefined;
  if (v && typeof v === "object" && typeof (v as { text?: unknown }).text === "string") return (v as { text: string }).text;
  return undefined;
}

function findSession(o: unknown): string | undefined {
  if (!o || typeof o !== "object") return undefined;
  for (const k of SESSION_KEYS) if (typeof (o as Record<string, unknown>)[k] === "string") return (o as Record<string, string>)[k];
  return undefined;
}
