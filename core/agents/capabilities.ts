/**
 * @module core/agents/capabilities
 * What a CLI agent's engine can do (SPEC.md `AgentCapabilityRegistry`): MCP bootstrap, skills,
 * human interaction and built-in tools, one default registry per engine, and
 * `hashCapabilityRegistry`, which lets a cache or a run notice that an agent's powers changed.
 * See docs/agents.md ("Capability registry").
 */
import { sha256Hex, stableStringify } from "../util/index.js";

/** The engine strings of the thirteen CLI agent variants (vendor-named, as SPEC.md says). */
export const CLI_AGENT_ENGINES = [
  "claude-code",
  "codex",
  "antigravity",
  "gemini",
  "pi",
  "omp",
  "kimi",
  "forge",
  "amp",
  "vibe",
  "opencode",
  "openclaw",
  "hermes",
] as const;

/** One of {@link CLI_AGENT_ENGINES}. */
export type CliAgentEngine = (typeof CLI_AGENT_ENGINES)[number];

/** Where a runtime tool comes from. */
export type RuntimeToolSource = "builtin" | "mcp" | "extension" | "skill" | "runtime";

/**
 * SPEC.md `AgentCapabilityRegistry`.
 * @example
 * const reg: AgentCapabilityRegistry = defaultCapabilityRegistry("codex");
 */
export interface AgentCapabilityRegistry {
  version: 1;
  engine: CliAgentEngine;
  runtimeTools: Record<string, { description?: string; source?: RuntimeToolSource }>;
  mcp: { bootstrap: "inline-config" | "project-config" | "allow-list" | "unsupported"; supportsProjectScope: boolean; supportsUserScope: boolean };
  skills: { supportsSkills: boolean; installMode?: "files" | "dir" | "plugin"; flowSkillIds: string[] };
  humanInteraction: { supportsUiRequests: boolean; methods: string[] };
  builtIns: string[];
}

type EngineDefaults = Omit<AgentCapabilityRegistry, "version" | "engine" | "runtimeTools">;

const NO_MCP = { bootstrap: "unsupported", supportsProjectScope: false, supportsUserScope: false } as const;
const PROJECT_MCP = { bootstrap: "project-config", supportsProjectScope: true, supportsUserScope: true } as const;
const NO_SKILLS = { supportsSkills: false, flowSkillIds: [] };
const PLUGIN_SKILLS: EngineDefaults["skills"] = { supportsSkills: true, installMode: "plugin", flowSkillIds: [] };
const NO_HUMAN = { supportsUiRequests: false, methods: [] };
const DEFAULT = ["default"];

/** The skill id Flow installs for engines with an orchestration skill (variant 12). */
export const FLOW_ORCHESTRATE_SKILL_ID = "flow-orchestrate";

/** Tools the OpenCode CLI (variant 11) has built in. */
const STEP_EVENT_BUILT_INS = ["apply_patch", "bash", "codesearch", "edit", "glob", "grep", "list", "question", "read", "skill", "task", "todowrite", "webfetch", "websearch", "write"];

const ENGINE_DEFAULTS: Record<CliAgentEngine, EngineDefaults> = {
  "claude-code": { mcp: PROJECT_MCP, skills: PLUGIN_SKILLS, humanInteraction: NO_HUMAN, builtIns: [...DEFAULT, "slash-commands"] },
  codex: { mcp: { bootstrap: "inline-config", supportsProjectScope: true, supportsUserScope: false }, skills: NO_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  antigravity: { mcp: PROJECT_MCP, skills: PLUGIN_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  gemini: { mcp: NO_MCP, skills: NO_SKILLS, humanInteraction: NO_HUMAN, builtIns: ["sunset"] },
  pi: { mcp: NO_MCP, skills: { supportsSkills: true, installMode: "files", flowSkillIds: [] }, humanInteraction: { supportsUiRequests: true, methods: ["extension_ui_request"] }, builtIns: DEFAULT },
  omp: { mcp: NO_MCP, skills: { supportsSkills: true, installMode: "files", flowSkillIds: [] }, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  kimi: { mcp: PROJECT_MCP, skills: { supportsSkills: true, installMode: "dir", flowSkillIds: [] }, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  forge: { mcp: NO_MCP, skills: NO_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  amp: { mcp: { bootstrap: "project-config", supportsProjectScope: true, supportsUserScope: false }, skills: NO_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  vibe: { mcp: PROJECT_MCP, skills: PLUGIN_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  opencode: { mcp: PROJECT_MCP, skills: PLUGIN_SKILLS, humanInteraction: NO_HUMAN, builtIns: STEP_EVENT_BUILT_INS },
  openclaw: { mcp: PROJECT_MCP, skills: { supportsSkills: true, installMode: "plugin", flowSkillIds: [FLOW_ORCHESTRATE_SKILL_ID] }, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
  hermes: { mcp: NO_MCP, skills: NO_SKILLS, humanInteraction: NO_HUMAN, builtIns: DEFAULT },
};

/**
 * The registry of an engine with its defaults, with optional fields replaced (a CLI agent
 * passes its effective built-in tools and skill ids). The result is normalized.
 * @example
 * defaultCapabilityRegistry("claude-code", { builtIns: ["Bash", "Read"] }).builtIns; // ["Bash", "Read"]
 */
export function defaultCapabilityRegistry(
  engine: CliAgentEngine,
  overrides: { builtIns?: string[]; flowSkillIds?: string[]; supportsSkills?: boolean } = {},
): AgentCapabilityRegistry {
  const d = ENGINE_DEFAULTS[engine];
  const skills = { ...d.skills, ...(overrides.flowSkillIds ? { flowSkillIds: overrides.flowSkillIds } : {}), ...(overrides.supportsSkills !== undefined ? { supportsSkills: overrides.supportsSkills } : {}) };
  return normalizeCapabilityRegistry({ version: 1, engine, runtimeTools: {}, mcp: d.mcp, skills, humanInteraction: d.humanInteraction, builtIns: overrides.builtIns ?? d.builtIns });
}

/**
 * A registry in canonical form: string lists trimmed, blanks dropped, de-duplicated and sorted;
 * runtime tool descriptions trimmed (empty ones dropped); `installMode` dropped when skills are
 * unsupported; missing sections filled with "unsupported" values. `null`/`undefined` (or `{}`)
 * give the empty registry, which has no `engine`.
 * @example
 * normalizeCapabilityRegistry(null).builtIns; // []
 */
export function normalizeCapabilityRegistry(registry: Partial<AgentCapabilityRegistry> | null | undefined): AgentCapabilityRegistry {
  const r = registry ?? {};
  const runtimeTools: AgentCapabilityRegistry["runtimeTools"] = {};
  for (const name of Object.keys(r.runtimeTools ?? {}).sort()) {
    const tool = r.runtimeTools![name]!;
    const description = tool.description?.trim();
    runtimeTools[name] = { ...(description ? { description } : {}), ...(tool.source ? { source: tool.source } : {}) };
  }
  const supportsSkills = r.skills?.supportsSkills === true;
  const out = {
    version: 1 as const,
    engine: r.engine,
    runtimeTools,
    mcp: {
      bootstrap: r.mcp?.bootstrap ?? "unsupported",
      supportsProjectScope: r.mcp?.supportsProjectScope === true,
      supportsUserScope: r.mcp?.supportsUserScope === true,
    },
    skills: {
      supportsSkills,
      ...(supportsSkills && r.skills?.installMode ? { installMode: r.skills.installMode } : {}),
      flowSkillIds: normalizeList(r.skills?.flowSkillIds),
    },
    humanInteraction: { supportsUiRequests: r.humanInteraction?.supportsUiRequests === true, methods: normalizeList(r.humanInteraction?.methods) },
    builtIns: normalizeList(r.builtIns),
  };
  return out as AgentCapabilityRegistry;
}

/**
 * SPEC.md `hashCapabilityRegistry`: SHA-256 hex (64 characters) of the normalized registry
 * wrapped as `{ capabilityRegistry }` and serialized with keys sorted at every depth. Key and
 * list order do not matter; `null` and `undefined` hash as the empty registry.
 * @example
 * hashCapabilityRegistry(agent.capabilities) === hashCapabilityRegistry(structuredClone(agent.capabilities)); // true
 */
export function hashCapabilityRegistry(registry: Partial<AgentCapabilityRegistry> | null | undefined): string {
  return sha256Hex(stableStringify({ capabilityRegistry: normalizeCapabilityRegistry(registry) }));
}

function normalizeList(list: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  for (const item of list ?? []) {
    const v = typeof item === "string" ? item.trim() : "";
    if (v) seen.add(v);
  }
  return [...seen].sort((a, b) => a.localeCompare(b));
}
