/**
 * @module node/agents/cli/variants/exec-cli-agent
 * Variant 2 (`exec`-style CLI): OpenAI's Codex CLI, `codex exec`, engine `codex`
 * (CLI-AGENTS.md "V2"). The prompt goes on stdin; JSONL events on stdout; the last message is
 * written to a file (`--output-last-message`), which wins when it holds JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonSchemaOf, normalizeUsage } from "../../../../core/agents/index.js";
import type { AgentEvent } from "../../../../core/agents/index.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter, InterpretedOutput } from "../cli-types.js";
import { flag, jsonLine, opt } from "../cli-types.js";

/**
 * Options of {@link ExecCliAgent} (SPEC.md variant 2).
 * @example
 * const opts: ExecCliAgentOptions = { model: "gpt-5-codex", sandbox: "workspace-write", config: { model_reasoning_effort: "high" } };
 */
export interface ExecCliAgentOptions extends BaseCliAgentOptions {
  sandbox?: "read-only" | "workspace-write" | "danger-full-access";
  /** `-c key=value` overrides: a map (object values JSON-encoded) or `key=value` strings. */
  config?: Record<string, unknown> | string[];
  profile?: string;
  /** `--full-auto`, only when `sandbox` is unset (recent CLIs reject the pair). */
  fullAuto?: boolean;
  /** Path of a JSON Schema file for the final message. */
  outputSchema?: string;
  /**
   * Default false. When on, the task schema is passed as `--output-schema` and the model emits
   * only the final JSON and refuses tool calls: enable it only for tool-free extraction.
   */
  nativeStructuredOutput?: boolean;
  /** `CODEX_HOME`. */
  configDir?: string;
  /** `OPENAI_API_KEY`. */
  apiKey?: string;
}

/**
 * Codex as a Flow agent.
 * @example
 * import { ExecCliAgent } from "durable-flow";
 * const fixer = new ExecCliAgent({ sandbox: "workspace-write", cwd: "/repo" });
 */
export class ExecCliAgent extends BaseCliAgent<ExecCliAgentOptions> {
  readonly engine = "codex" as const;
  override readonly supportsNativeStructuredOutput: boolean;

  constructor(options: ExecCliAgentOptions = {}) {
    super(options);
    this.supportsNativeStructuredOutput = options.nativeStructuredOutput === true;
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const dir = mkdtempSync(join(tmpdir(), "flow-codex-"));
    const outputFile = join(dir, "last-message.txt");
    const resume = call.resumeSession;
    let schemaFile = o.outputSchema;
    // Resume calls never send a schema.
    if (!resume && this.supportsNativeStructuredOutput && call.options.outputSchema !== undefined) {
      const schema = jsonSchemaOf(call.options.outputSchema);
      if (schema) {
        schemaFile = join(dir, "output-schema.json");
        writeFileSync(schemaFile, JSON.stringify(strict(schema)));
      }
    }
    const fullAuto = !resume && o.fullAuto === true && o.sandbox === undefined;
    // An explicit sandbox is the user's choice of permissions: yolo does not override it.
    const bypass = !fullAuto && (call.yolo && o.sandbox === undefined);
    const config = Array.isArray(o.config) ? o.config : Object.entries(o.config ?? {}).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    const args = [
      "exec",
      ...(resume ? ["resume"] : []),
      ...config.flatMap((c) => ["-c", c]),
      ...opt("--model", o.model),
      ...(resume ? [] : [...opt("--sandbox", o.sandbox), ...opt("--profile", o.profile), ...flag("--full-auto", fullAuto), ...opt("--output-schema", schemaFile)]),
      ...flag("--dangerously-bypass-approvals-and-sandbox", bypass),
      ...(o.extraArgs ?? []),
      "--json",
      "--output-last-message",
      outputFile,
      ...(resume ? [resume] : []),
      "-",
    ];
    return {
      command: "codex",
      args,
      stdin: call.promptWithSystem,
      env: { CODEX_HOME: o.configDir, OPENAI_API_KEY: o.apiKey },
      outputFile,
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
      interpreter: execInterpreter(this.engine),
      banners: [/^OpenAI Codex v/],
      exitCodeNeedsStderr: true,
    };
  }
}

/** Codex's JSONL events. */
function execInterpreter(engine: string): CliInterpreter {
  const out: InterpretedOutput = {};
  return {
    onLine(line, emit: (e: AgentEvent) => void) {
      const j = jsonLine(line);
      if (!j) return;
      if (j.type === "thread.started" && typeof j.thread_id === "string") out.sessionId = j.thread_id;
      else if (j.type?.startsWith("item.") && j.item) {
        const item = j.item;
        const phase = j.type === "item.started" ? "started" : j.type === "item.updated" ? "updated" : "completed";
        if (item.type === "agent_message" && typeof item.text === "string") {
          if (phase === "completed") {
            out.answer = item.text;
            emit({ type: "text", engine, delta: item.text });
          }
        } else {
          const kind = item.type === "command_execution" ? "command" : item.type === "file_change" ? "file_change" : item.type === "web_search" ? "web_search" : item.type === "todo_list" ? "todo_list" : item.type === "reasoning" ? "reasoning" : "tool";
          const ok = item.exit_code !== undefined && item.exit_code !== null ? item.exit_code === 0 : item.status === "failed" ? false : undefined;
          const output = item.aggregated_output ?? item.changes;
          emit({
            type: "action",
            engine,
            phase,
            action: { id: String(item.id), kind, title: String(item.command ?? item.type) },
            ...(ok !== undefined ? { ok } : {}),
            ...(item.command !== undefined ? { input: { command: item.command } } : {}),
            ...(phase === "completed" && output !== undefined ? (ok === false ? { error: { message: String(output) } } : { output }) : {}),
          });
        }
      } else if (j.type === "turn.completed") {
        const usage = normalizeUsage(j.usage);
        if (usage) out.usage = usage;
      } else if (j.type === "turn.failed") {
        out.ok = false;
        out.error = String(j.error?.message ?? "turn failed");
      } else if (j.type === "error" && typeof j.message === "string" && !/reconnecting/i.test(j.message)) {
        out.ok = false;
        out.error = j.message;
      }
    },
    finish: () => out,
  };
}

/** Codex wants strict schemas: every object closed, every property required. */
function strict(schema: Record<string, unknown>): Record<string, unknown> {
  const walk = (node: any): any => {
    if (!node || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map(walk);
    const out: any = {};
    for (const [k, v] of Object.entries(node)) if (k !== "$schema") out[k] = walk(v);
    if (out.type === "object" && out.properties) {
      out.additionalProperties = false;
      out.required = Object.keys(out.properties);
    }
    return out;
  };
  return walk(schema);
}
