import { describe, expect, it } from "vitest";
import { z } from "zod";
import { correctionPrompt, extractAgentOutput, parseJsonFromText, withRequiredOutput } from "durable-flow/core";

describe("extractAgentOutput", () => {
  it("prefers a structured output field over the text", () => {
    expect(extractAgentOutput({ output: { a: 1 }, text: '{"a":2}' })).toEqual({ a: 1 });
  });

  it("parses the whole text when it starts with a brace, after removing a BOM", () => {
    expect(extractAgentOutput({ text: '\uFEFF {"a":1}' })).toEqual({ a: 1 });
  });

  it("takes the object after the last json fence", () => {
    const text = 'First try:\n```json\n{"a":1}\n```\nFixed:\n```json\n{"a":2}\n```\nDone {"a":3} no wait';
    expect(extractAgentOutput({ text })).toEqual({ a: 2 });
  });

  it("looks in step texts newest first when the final text has no JSON", () => {
    const result = { text: "All done.", steps: [{ text: 'old {"a":1}' }, { text: 'new ```\n{"a":2}\n```' }] };
    expect(extractAgentOutput(result)).toEqual({ a: 2 });
    expect(extractAgentOutput({ text: "ok", steps: [{ text: 'x {"a":1} y {"a":9}' }, { text: "none" }] })).toEqual({ a: 1 });
  });

  it("takes the balanced object with the rightmost closing brace, skipping braces in strings", () => {
    expect(parseJsonFromText('I think {"a": "}{"} is it; final: {"b": {"c": "x\\"}"}} thanks')).toEqual({ b: { c: 'x"}' } });
  });

  it("ignores prose braces that are not JSON", () => {
    expect(parseJsonFromText("use {curly} here, then {\"ok\": true}")).toEqual({ ok: true });
    expect(parseJsonFromText("no json at all")).toBeUndefined();
  });

  it("does not throw on AI SDK results whose output getter throws", () => {
    const result = { text: '{"a":1}', get output(): unknown { throw new Error("No output specified."); } };
    expect(extractAgentOutput(result)).toEqual({ a: 1 });
  });
});

describe("prompt-based structured output", () => {
  const schema = z.object({ passed: z.number() });

  it("puts the instruction first and the REQUIRED OUTPUT block with the JSON schema last", () => {
    const p = withRequiredOutput("Count the tests.", schema);
    expect(p.split("\n")[0]).toMatch(/only a raw JSON object/);
    expect(p).toContain("Count the tests.");
    expect(p).toMatch(/\*\*REQUIRED OUTPUT\*\*[\s\S]*"passed":\{"type":"number"\}[\s\S]*first character of your answer must be \{/);
  });

  it("names the validation problems in the correction prompt", () => {
    const p = correctionPrompt(["passed: expected number, received string"], schema);
    expect(p).toContain("passed: expected number, received string");
    expect(p).toContain("**REQUIRED OUTPUT**");
  });
});
