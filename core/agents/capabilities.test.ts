import { describe, expect, it } from "vitest";
import { CLI_AGENT_ENGINES, defaultCapabilityRegistry, hashCapabilityRegistry, normalizeCapabilityRegistry } from "durable-flow/core";
import type { AgentCapabilityRegistry } from "durable-flow/core";

const registry: AgentCapabilityRegistry = {
  version: 1,
  engine: "claude-code",
  runtimeTools: { lint: { description: "  Runs eslint ", source: "runtime" } },
  mcp: { bootstrap: "project-config", supportsProjectScope: true, supportsUserScope: true },
  skills: { supportsSkills: true, installMode: "plugin", flowSkillIds: ["b", " a", "b", ""] },
  humanInteraction: { supportsUiRequests: false, methods: [] },
  builtIns: ["Read", "Bash"],
};

describe("hashCapabilityRegistry", () => {
  it("gives one digest for the same registry in any key and list order", () => {
    const reordered = {
      builtIns: ["Bash", "Read", "Bash"],
      skills: { flowSkillIds: ["a", "b"], installMode: "plugin", supportsSkills: true },
      humanInteraction: { methods: [], supportsUiRequests: false },
      mcp: { supportsUserScope: true, supportsProjectScope: true, bootstrap: "project-config" },
      runtimeTools: { lint: { source: "runtime", description: "Runs eslint" } },
      engine: "claude-code",
      version: 1,
    } as AgentCapabilityRegistry;
    expect(hashCapabilityRegistry(reordered)).toBe(hashCapabilityRegistry(registry));
  });

  it("matches the known SHA-256 vector of the normalized, key-sorted registry", () => {
    // sha256 of {"capabilityRegistry":{"builtIns":["Bash","Read"],"engine":"claude-code",...,"version":1}}
    expect(hashCapabilityRegistry(registry)).toBe("081b58e99f0bebe1a4bd0caa67f56040e9b0e1f96c98993b6914c510ba8c5aaa");
  });

  it("hashes null and undefined as the empty normalized registry", () => {
    const empty = "d6c049925adebe28034597880c9c25f7b6aa5b25f073c4324665cdde1f7141b3";
    expect(hashCapabilityRegistry(null)).toBe(empty);
    expect(hashCapabilityRegistry(undefined)).toBe(empty);
    expect(hashCapabilityRegistry({} as AgentCapabilityRegistry)).toBe(empty);
  });

  it("changes when a capability changes", () => {
    expect(hashCapabilityRegistry({ ...registry, builtIns: ["Bash"] })).not.toBe(hashCapabilityRegistry(registry));
  });
});

describe("defaultCapabilityRegistry", () => {
  it("has a registry with version 1 for each of the thirteen engines", () => {
    expect(CLI_AGENT_ENGINES).toHaveLength(13);
    for (const engine of CLI_AGENT_ENGINES) {
      const r = defaultCapabilityRegistry(engine);
      expect(r.version).toBe(1);
      expect(r.engine).toBe(engine);
      expect(r.runtimeTools).toEqual({});
    }
  });

  it("uses the reference values per engine", () => {
    expect(defaultCapabilityRegistry("codex").mcp).toEqual({ bootstrap: "inline-config", supportsProjectScope: true, supportsUserScope: false });
    expect(defaultCapabilityRegistry("pi").humanInteraction).toEqual({ supportsUiRequests: true, methods: ["extension_ui_request"] });
    expect(defaultCapabilityRegistry("gemini").builtIns).toEqual(["sunset"]);
    expect(defaultCapabilityRegistry("openclaw").skills).toEqual({ supportsSkills: true, installMode: "plugin", flowSkillIds: ["flow-orchestrate"] });
    expect(defaultCapabilityRegistry("opencode").builtIns).toContain("todowrite");
  });

  it("drops installMode when skills are unsupported", () => {
    const r = normalizeCapabilityRegistry({ ...registry, skills: { supportsSkills: false, installMode: "dir", flowSkillIds: [] } });
    expect(r.skills).toEqual({ supportsSkills: false, flowSkillIds: [] });
  });
});
