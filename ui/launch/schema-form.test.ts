import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formModel, formToInput, inputToForm, leafFields } from "./schema-form.js";
import { inputChecker, serverProblems } from "./validate-input.js";

// The schema a workflow's row carries: zod's JSON Schema, as read-model.ts writes it.
const schema = z.toJSONSchema(
  z.object({
    service: z.string().min(1).describe("The service to release"),
    shards: z.number().int().min(1).max(50).optional().describe("Test shards"),
    ratio: z.number().gt(0).lt(1).nullable().optional(),
    count: z.number().int(),
    mode: z.enum(["fast", "safe"]).default("safe"),
    dryRun: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
    ports: z.array(z.number().int()),
    target: z.object({ region: z.string(), zone: z.number().optional() }).optional(),
    extra: z.record(z.string(), z.number()).optional(),
  }),
  { unrepresentable: "any" },
) as Record<string, unknown>;

describe("JSON Schema → form model", () => {
  const model = formModel(schema);
  const byKey = Object.fromEntries(leafFields(model.fields).map((f) => [f.key, f]));

  it("gives each property a kind, required flag, limits, options, default and help text", () => {
    expect(model.fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["service", "string", true],
      ["shards", "integer", false],
      ["ratio", "number", false],
      ["count", "integer", true],
      ["mode", "enum", false], // a default makes it optional to the person: it is prefilled
      ["dryRun", "boolean", false],
      ["tags", "list", false],
      ["ports", "list", true],
      ["target", "object", false],
      ["extra", "json", false],
    ]);
    expect(byKey.service).toMatchObject({ label: "Service", description: "The service to release", minLength: 1 });
    expect(byKey.shards).toMatchObject({ min: 1, max: 50, description: "Test shards" });
    // zod's safe-integer range is not shown as a limit.
    expect(byKey.count!.min).toBeUndefined();
    expect(byKey.mode).toMatchObject({ options: ["fast", "safe"], default: "safe" });
    expect(byKey.dryRun!.label).toBe("Dry run");
    expect(model.fields.find((f) => f.key === "ports")!.item).toMatchObject({ kind: "integer" });
    expect(byKey["target.region"]).toMatchObject({ name: "region", kind: "string", required: true });
    expect(byKey["target.zone"]).toMatchObject({ kind: "number", required: false });
    expect(formModel(null)).toEqual({ fields: [], rawOnly: false });
    expect(formModel({ type: "object" }).rawOnly).toBe(true);
  });

  it("turns typed text into the input: numbers parsed, empty optional fields and groups left out, lists of rows", () => {
    const values = { ...inputToForm(model, {}), service: "api", shards: "4", count: "2", ports: ["80", "", "443"], "target.zone": "" };
    const { input, errors } = formToInput(model, values);
    expect(errors).toEqual({});
    expect(input).toEqual({ service: "api", shards: 4, count: 2, mode: "safe", ports: [80, 443] });
    const bad = formToInput(model, { ...values, shards: "four", extra: "{nope" });
    expect(bad.errors).toEqual({ shards: "Enter a number.", extra: "This is not valid JSON." });
  });

  it("fills a form from a run's input (re-run) and gives the same input back", () => {
    const input = { service: "api", count: 3, mode: "fast", dryRun: true, tags: ["a", "b"], ports: [22], target: { region: "eu", zone: 2 }, extra: { x: 1 } };
    const values = inputToForm(model, input);
    expect(values).toMatchObject({ service: "api", count: "3", mode: '"fast"', dryRun: true, tags: ["a", "b"], "target.region": "eu", "target.zone": "2" });
    expect(formToInput(model, values).input).toEqual(input);
  });
});

describe("input checks", () => {
  const check = inputChecker(schema);
  it("checks an input against the schema in the browser, one sentence per field key", () => {
    expect(check({ service: "api", count: 1, ports: [] })).toEqual({});
    expect(check({ service: "", shards: 99, count: 1.5, ports: [], target: {} })).toEqual({
      service: "Required.",
      shards: "At most 50.",
      count: "Must be a whole number.",
      "target.region": "Required.",
    });
    expect(check({ count: 1, ports: [], bogus: 1 })).toMatchObject({ service: "Required.", "": '"bogus" is not an input of this workflow.' });
  });

  it("reads the server's INPUT_INVALID problems per field", () => {
    expect(serverProblems({ code: "INPUT_INVALID", message: "bad", details: { problems: ["shards: Too big: expected number to be <=50", "(input): Unrecognized key"] } })).toEqual({
      shards: "Too big: expected number to be <=50",
      "": "Unrecognized key",
    });
    expect(serverProblems({ code: "INPUT_INVALID", message: "Run input must be an object" })).toEqual({ "": "Run input must be an object" });
    expect(serverProblems({ code: "WORKFLOW_NOT_FOUND" })).toBeNull();
  });
});
