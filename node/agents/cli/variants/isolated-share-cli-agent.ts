/**
 * @module node/agents/cli/variants/isolated-share-cli-agent
 * Variant 7: Moonshot AI's Kimi CLI, executable `kimi`, engine `kimi` (CLI-AGENTS.md "V7").
 * Every run gets its own share directory (`KIMI_SHARE_DIR`), seeded with the login files of
 * the source directory and deleted afterwards, so parallel tasks never write the same metadata
 * file. Every run has a session id (generated when none is given), so it can be resumed.
 */
import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { REQUIRED_OUTPUT_MARKER } from "../../../../core/agents/index.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter } from "../cli-types.js";
import { flag, opt } from "../cli-types.js";
import { roleLinesInterpreter } from "../shared-interpreters.js";
import { JSON_REMINDER } from "./conversation-cli-agent.js";

/** Files copied from the source share directory into each run's own. */
const SHARE_SEED_FILES = ["config.toml", "credentials", "device_id", "latest_version.txt"];
const BANNER = /^YOLO mode is enabled/;

/**
 * Options of {@link IsolatedShareCliAgent} (SPEC.md variant 7).
 * @example
 * const opts: IsolatedShareCliAgentOptions = { model: "kimi-k2", thinking: false, maxRalphIterations: 3 };
 */
export interface IsolatedShareCliAgentOptions extends BaseCliAgentOptions {
  /** Default true. */
  thinking?: boolean;
  agent?: "default" | "okabe";
  agentFile?: string;
  maxRalphIterations?: number;
  /** Session id (a per-call `resumeSession` wins; generated when neither is set). */
  session?: string;
  continue?: boolean;
  /** A fixed share directory, used as is (no isolation). */
  configDir?: string;
  /** Where the login files are copied from (default `~/.kimi`). */
  shareSourceDir?: string;
  mcpConfigFile?: string;
  mcpConfig?: string;
  skillsDir?: string;
  maxStepsPerTurn?: number;
  maxRetriesPerStep?: number;
}

/**
 * Kimi as a Flow agent.
 * @example
 * import { IsolatedShareCliAgent } from "durable-flow";
 * const kimi = new IsolatedShareCliAgent({ model: "kimi-k2" });
 */
export class IsolatedShareCliAgent extends BaseCliAgent<IsolatedShareCliAgentOptions> {
  readonly engine = "kimi" as const;

  protected override capabilityOverrides() {
    return this.options.skillsDir ? { flowSkillIds: [`dir:${this.options.skillsDir}`] } : {};
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const session = call.resumeSession ?? o.session ?? randomUUID();
    const fixedShare = o.configDir ?? o.env?.KIMI_SHARE_DIR;
    const share = fixedShare ?? seedShareDir(o.shareSourceDir ?? join(homedir(), ".kimi"));
    const prompt = call.promptWithSystem.includes(REQUIRED_OUTPUT_MARKER) ? `${call.promptWithSystem}\n\n${JSON_REMINDER}` : call.promptWithSystem;
    const args = [
      "--print",
      "--output-format",
      call.streaming ? "stream-json" : "text",
      ...flag("--final-message-only", !call.streaming),
      "--work-dir",
      call.cwd,
      "--session",
      session,
      ...flag("--continue", o.continue),
      ...opt("--model", o.model),
      o.thinking === false ? "--no-thinking" : "--thinking",
      ...opt("--agent", o.agent),
      ...opt("--agent-file", o.agentFile),
      ...opt("--mcp-config-file", o.mcpConfigFile),
      ...opt("--mcp-config", o.mcpConfig),
      ...opt("--max-ralph-iterations", o.maxRalphIterations),
      ...opt("--skills-dir", o.skillsDir),
      ...opt("--max-steps-per-turn", o.maxStepsPerTurn),
      ...opt("--max-retries-per-step", o.maxRetriesPerStep),
      ...(o.extraArgs ?? []),
      "--prompt",
      prompt,
    ];
    return {
      command: "kimi",
      args,
      env: { KIMI_SHARE_DIR: share },
      sessionId: session,
      ...(fixedShare ? {} : { cleanup: () => rmSync(share, { recursive: true, force: true }) }),
      interpreter: call.streaming ? roleLinesInterpreter(this.engine, "last") : textInterpreter(),
      banners: [BANNER],
      stdoutError: /^(LLM not set|Error:|Max steps reached)/,
      harmlessStderr: [/To resume this session: kimi -r/],
    };
  }
}

function seedShareDir(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), "flow-kimi-share-"));
  for (const f of SHARE_SEED_FILES) if (existsSync(join(source, f))) copyFileSync(join(source, f), join(dir, f));
  return dir;
}

/** Text mode: output made only of the YOLO banner means the CLI gave no answer. */
function textInterpreter(): CliInterpreter {
  let lines = 0;
  let banners = 0;
  return {
    onLine(line) {
      lines++;
      if (BANNER.test(line)) banners++;
    },
    finish: () => (lines > 0 && lines === banners ? { ok: false, error: "the CLI printed only its banner and no answer" } : {}),
  };
}
