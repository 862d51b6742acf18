import { describe, expect, it } from "vitest";
import { isFlowError, parseNamespace, serializeNamespace } from "durable-flow/core";

describe("MemoryNamespace codec", () => {
  it("serializes as kind:id and percent-encodes : and % in the id", () => {
    expect(serializeNamespace({ kind: "user", id: "alice" })).toBe("user:alice");
    expect(serializeNamespace({ kind: "workflow", id: "a:b%c" })).toBe("workflow:a%3Ab%25c");
    expect(serializeNamespace({ kind: "global", id: "" })).toBe("global:");
  });

  it("round-trips ids containing colons, percent signs and escape-like text", () => {
    for (const id of ["a:b", "%", "%3A", "100%:done", "::", "x%25y", "naïve ✓"]) {
      for (const kind of ["workflow", "agent", "user", "global"] as const) {
        expect(parseNamespace(serializeNamespace({ kind, id }))).toEqual({ kind, id });
      }
    }
  });

  it("parses strings without a known kind prefix as global with the whole string as id", () => {
    expect(parseNamespace("team-notes")).toEqual({ kind: "global", id: "team-notes" });
    expect(parseNamespace("project:x")).toEqual({ kind: "global", id: "project:x" });
    expect(parseNamespace("")).toEqual({ kind: "global", id: "" });
    expect(parseNamespace("User:x")).toEqual({ kind: "global", id: "User:x" });
  });

  it("decodes only %3A and %25 (either case) and leaves other escapes alone", () => {
    expect(parseNamespace("agent:a%3ab%2Fc")).toEqual({ kind: "agent", id: "a:b%2Fc" });
    expect(parseNamespace("agent:a:b")).toEqual({ kind: "agent", id: "a:b" });
  });

  it("rejects a namespace with an unknown kind", () => {
    let error: unknown;
    try {
      serializeNamespace({ kind: "team" as "user", id: "x" });
    } catch (e) {
      error = e;
    }
    expect(isFlowError(error, "INVALID_ARGUMENT")).toBe(true);
  });
});
