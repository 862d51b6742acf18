/**
 * @module node/agents/cli/base-cli-agent
 * What every CLI agent does the same way (CLI-AGENTS.md section 2; docs/agents.md, "CLI
 * agents"): prompt and system text, working directory, environment layers, timeouts, output
 * cap, events, the answer/usage/session read from the interpreter, failure classification and
 * preflight. A variant only builds its command (argv, stdin, env, interpreter).
 */
import { randomUUID } from "node:crypto";
import { accessSync, constants, readFileSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { defaultCapabilityRegistry } from "../../../core/agents/index.js";
import type {
  AgentCapabilityRegistry,
  AgentEvent,
  AgentGenerateOptions,
  AgentLike,
  AgentMessage,
  AgentResult,
  AgentTimeout,
  CliAgentEngine,
} from "../../../core/agents/index.js";
import { FlowError, isFlowError } from "../../../core/errors.js";
import { failureError, runFailed, stopError } from "./cli-failure.js";
import { CliProcess } from "./cli-process.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "./cli-types.js";
import { LineChannel } from "./line-channel.js";

/** Capture cap per stream when neither the agent nor the call sets one. */
export const DEFAULT_CLI_MAX_OUTPUT_BYTES = 200_000;

/**
 * The base class of the thirteen CLI agents. Subclasses set `engine` and implement
 * `buildCommand`; they may override `capabilityOverrides` and `yoloDefault`.
 * @example
 * class MyCliAgent extends BaseCliAgent { readonly engine = "hermes"; protected buildCommand(call) { return { command: "my-cli", args: [call.promptWithSystem], interpreter: plainTextInterpreter() }; } }
 */
export abstract class BaseCliAgent<O extends BaseCliAgentOptions = BaseCliAgentOptions> implements AgentLike {
  readonly id: string;
  abstract readonly engine: CliAgentEngine;
  readonly supportsNativeStructuredOutput: boolean = false;
  protected readonly options: O;

  constructor(options: O) {
    this.options = options;
    this.id = options.id ?? randomUUID();
  }

  /** SPEC.md `capabilities`: this engine's registry with this agent's effective tools. */
  get capabilities(): AgentCapabilityRegistry {
    return defaultCapabilityRegistry(this.engine, this.capabilityOverrides());
  }

  /** Built-in tools and skills that differ from the engine defaults. */
  protected capabilityOverrides(): Parameters<typeof defaultCapabilityRegistry>[1] {
    return {};
  }

  /** `yolo` when the options do not say (true, except variants 6 and 10). */
  protected yoloDefault(): boolean {
    return true;
  }

  /** The command of one call: argv, stdin, variables and the output interpreter. */
  protected abstract buildCommand(call: CliCall): CliCommand | Promise<CliCommand>;

  /**
   * Checks, before the first generation, that the command can be built from the options and
   * that the executable is on `PATH`; either failure is `AGENT_CONFIG_INVALID`.
   */
  async preflight(args: AgentGenerateOptions = {}): Promise<void> {
    const cmd = await this.command(this.makeCall({ ...args, prompt: "" }));
    await cmd.cleanup?.();
    const env = this.buildEnv(args, cmd.env);
    if (!findOnPath(cmd.command, env.PATH ?? "", this.makeCall(args).cwd)) {
      throw new FlowError("AGENT_CONFIG_INVALID", `CLI agent ${this.id} (${this.engine}) needs "${cmd.command}" on PATH; install it or fix PATH.`, { agentId: this.id, engine: this.engine, command: cmd.command });
    }
  }

  async generate(args: AgentGenerateOptions = {}): Promise<AgentResult> {
    const call = this.makeCall(args);
    const cmd = await this.command(call);
    const emit = (event: AgentEvent) => args.onEvent?.(event);
    const { totalMs, idleMs } = this.timeouts(args.timeout);
    const channel = cmd.driver ? new LineChannel() : undefined;
    try {
      emit({ type: "started", engine: this.engine, title: cmd.command, ...(call.resumeSession ? { resume: call.resumeSession } : {}) });
      const proc = CliProcess.start({
        command: cmd.command,
        args: cmd.args,
        cwd: call.cwd,
        env: this.buildEnv(args, cmd.env),
        ...(cmd.stdin !== undefined ? { stdin: cmd.stdin } : {}),
        keepStdinOpen: cmd.driver !== undefined,
        ...(totalMs !== undefined ? { totalMs } : {}),
        ...(idleMs !== undefined ? { idleMs } : {}),
        maxOutputBytes: this.options.maxOutputBytes ?? args.maxOutputBytes ?? DEFAULT_CLI_MAX_OUTPUT_BYTES,
        ...(args.abortSignal ? { signal: args.abortSignal } : {}),
        onStdout: (t) => args.onStdout?.(t),
        onStderr: (t) => args.onStderr?.(t),
        onLine: (line) => {
          cmd.interpreter.onLine(line, emit);
          channel?.push(line);
        },
      });
      let driverError: unknown;
      const driving = cmd.driver?.(proc, channel!).then(
        () => proc.stop("done"),
        (error: unknown) => {
          driverError = error;
          proc.stop("done");
        },
      );
      const run = await proc.result.finally(() => channel?.close());
      await driving;
      const interpreted = cmd.interpreter.finish();
      const sessionId = interpreted.sessionId ?? cmd.sessionId ?? call.resumeSession;
      const ctx = {
        agentId: this.id,
        engine: this.engine,
        command: cmd.command,
        run,
        interpreted,
        ...(cmd.harmlessStderr ? { harmlessStderr: cmd.harmlessStderr } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(call.resumeSession ? { resumeSession: call.resumeSession } : {}),
        ...(totalMs !== undefined ? { totalMs } : {}),
        ...(idleMs !== undefined ? { idleMs } : {}),
        nowMs: Date.now(),
      };
      const stopped = stopError(ctx);
      if (stopped) throw stopped;
      if (driverError) throw FlowError.from(driverError, "AGENT_CLI_ERROR");
      if (runFailed(ctx, cmd.exitCodeNeedsStderr, cmd.stdoutError)) throw failureError(ctx);

      const fileText = cmd.outputFile ? readOutputFile(cmd.outputFile) : undefined;
      const fileJson = fileText !== undefined ? parseJson(fileText) : undefined;
      const stdout = stripBanners(run.stdout, cmd.banners);
      const text = fileJson !== undefined ? fileText!.trim() : (interpreted.answer ?? interpreted.streamed ?? stdout);
      const output = fileJson ?? interpreted.output ?? (/^\s*[[{]/.test(text) ? parseJson(text) : undefined);
      if (run.stdoutTruncated) {
        emit({ type: "action", engine: this.engine, phase: "completed", action: { id: "truncated", kind: "warning", title: "captured stdout truncated" }, level: "warning" });
      }
      const result: AgentResult = {
        text,
        ...(output !== undefined ? { output } : {}),
        ...(interpreted.usage ? { usage: interpreted.usage } : {}),
        ...(sessionId ? { sessionId, sessionDir: call.cwd } : {}),
        finishReason: "stop",
        modelId: this.options.model ?? cmd.command,
      };
      emit({ type: "completed", engine: this.engine, ok: true, answer: text, ...(sessionId ? { resume: sessionId } : {}), ...(interpreted.usage ? { usage: interpreted.usage } : {}) });
      return result;
    } catch (error) {
      emit({ type: "completed", engine: this.engine, ok: false, error: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      await cmd.cleanup?.();
    }
  }

  /** Builds the command; a build failure is a configuration error. */
  private async command(call: CliCall): Promise<CliCommand> {
    try {
      return await this.buildCommand(call);
    } catch (error) {
      if (isFlowError(error)) throw error;
      throw new FlowError("AGENT_CONFIG_INVALID", `CLI agent ${this.id} (${this.engine}) could not build its command: ${(error as Error).message}`, { agentId: this.id, engine: this.engine }, { cause: error });
    }
  }

  private makeCall(args: AgentGenerateOptions): CliCall {
    const { prompt, system } = splitPrompt(args);
    const agentSystem = this.options.systemPrompt ?? this.options.instructions;
    const systemText = [agentSystem, ...system].filter((s) => s && s.trim()).join("\n\n") || undefined;
    return {
      prompt,
      ...(systemText ? { systemText } : {}),
      ...(agentSystem ? { agentSystem } : {}),
      systemMessages: system,
      promptWithSystem: systemText ? `${systemText}\n\n${prompt}` : prompt,
      cwd: this.options.cwd ?? args.rootDir ?? process.cwd(),
      ...(args.resumeSession ? { resumeSession: args.resumeSession } : {}),
      ...(args.allowTools ? { allowTools: args.allowTools } : {}),
      streaming: typeof args.onEvent === "function",
      yolo: this.options.yolo ?? this.yoloDefault(),
      options: args,
    };
  }

  /** Process env → agent `env` → run context → command variables (later wins; undefined removes). */
  private buildEnv(args: AgentGenerateOptions, commandEnv: Record<string, string | undefined> | undefined): Record<string, string> {
    const t = args.taskContext ?? {};
    const layers: Record<string, string | undefined>[] = [
      process.env,
      this.options.env ?? {},
      {
        ...(t.runId !== undefined ? { FLOW_RUN_ID: t.runId } : {}),
        ...(t.nodeId !== undefined ? { FLOW_NODE_ID: t.nodeId } : {}),
        ...(t.iteration !== undefined ? { FLOW_ITERATION: String(t.iteration) } : {}),
        ...(t.attempt !== undefined ? { FLOW_ATTEMPT: String(t.attempt) } : {}),
      },
      commandEnv ?? {},
    ];
    const env: Record<string, string> = {};
    for (const layer of layers) {
      for (const [k, v] of Object.entries(layer)) {
        if (v === undefined) delete env[k];
        else env[k] = v;
      }
    }
    return env;
  }

  /** A number is the total time only (it drops the idle limit); an object falls back per field. */
  private timeouts(t: AgentTimeout | undefined): { totalMs?: number; idleMs?: number } {
    if (typeof t === "number") return { totalMs: t };
    const totalMs = t?.totalMs ?? this.options.timeoutMs;
    const idleMs = t?.idleMs ?? this.options.idleTimeoutMs;
    return { ...(totalMs !== undefined ? { totalMs } : {}), ...(idleMs !== undefined ? { idleMs } : {}) };
  }
}

/** The prompt text and system parts of a call: messages become `ROLE: text` blocks. */
function splitPrompt(args: AgentGenerateOptions): { prompt: string; system: string[] } {
  const messages: AgentMessage[] | undefined = Array.isArray(args.prompt) ? (args.prompt as AgentMessage[]) : args.messages;
  if (!messages?.length) return { prompt: typeof args.prompt === "string" ? args.prompt : "", system: [] };
  const system = messages.filter((m) => m.role === "system").map((m) => contentText(m.content));
  const rest = messages.filter((m) => m.role !== "system").map((m) => `${m.role.toUpperCase()}: ${contentText(m.content)}`);
  return { prompt: rest.join("\n\n"), system };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("");
  return JSON.stringify(content);
}

function stripBanners(stdout: string, banners: RegExp[] | undefined): string {
  if (!banners?.length) return stdout.trim();
  return stdout
    .split("\n")
    .filter((l) => !banners.some((re) => re.test(l)))
    .join("\n")
    .trim();
}

function readOutputFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, "").trim());
  } catch {
    return undefined;
  }
}

/** Whether `command` resolves to an executable file through `PATH` (or as a path). */
export function findOnPath(command: string, pathVar: string, cwd: string): string | undefined {
  const candidates = command.includes("/") ? [isAbsolute(command) ? command : join(cwd, command)] : pathVar.split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
