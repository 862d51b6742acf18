import { describe, expect, it } from "vitest";
import { checkJson, skeletonOf } from "./json-check.js";

const schema = { type: "object", properties: { ref: { type: "string" }, n: { type: "integer", minimum: 1 } }, required: ["ref"], additionalProperties: false };

describe("checkJson", () => {
  it("parses JSON, takes empty text as the given value, and names the field that does not match the schema", () => {
    expect(checkJson('{"ref":"a"}', schema)).toEqual({ ok: true, value: { ref: "a" } });
    expect(checkJson("  ", null, {})).toEqual({ ok: true, value: {} });
    expect(checkJson("{ref}", schema)).toMatchObject({ ok: false, error: expect.stringMatching(/^Not JSON/) });
    const bad = checkJson('{"n":0}', schema);
    expect(bad.ok).toBe(false);
    expect((bad as { error: string }).error).toMatch(/ref: .*n: /);
  });

  it("builds a starting value from a schema", () => {
    expect(skeletonOf({ type: "object", properties: { label: { enum: ["bug", "idea"] }, n: { type: "number" }, tags: { type: "array" }, on: { type: "boolean", default: true } } })).toEqual({ label: "bug", n: 0, tags: [], on: true });
  });
});
