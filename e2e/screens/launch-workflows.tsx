/**
 * A dev workflow for the launch form (docs/app-views-runs.md "Launch"): `deploy`, whose input
 * uses every kind of field the form generates (an enum, a boolean, a bounded integer with a
 * default, a list of enums, an optional nested object with a list of strings, a record edited
 * as JSON). The screenshot script (e2e/screens/runs.ts) registers it beside the app's workflows.
 */
import { z } from "zod";
import { defineWorkflows, type WorkflowSet } from "durable-flow/core";

export const launchWorkflows = defineWorkflows(
  {
    input: z.object({
      target: z.enum(["staging", "production"]).describe("Where to deploy"),
      version: z.string().min(1).describe("The version to deploy, such as 2.4.1"),
      replicas: z.number().int().min(1).max(20).default(2).describe("Instances to run"),
      regions: z.array(z.enum(["eu-west", "us-east", "ap-south"])).min(1).describe("Regions to deploy to"),
      dryRun: z.boolean().optional().describe("Plan only; change nothing"),
      notify: z
        .object({ channel: z.string().describe("A chat channel"), mentions: z.array(z.string()).optional().describe("People to mention") })
        .optional()
        .describe("Who hears about it"),
      labels: z.record(z.string(), z.string()).optional().describe("Labels put on the deployment"),
    }),
    planned: z.object({ steps: z.number() }),
  },
  ({ flow, Workflow, Task, outputs }) => ({
    deploy: Object.assign(
      flow((ctx) => (
        <Workflow name="deploy">
          <Task id="plan" output={outputs.planned}>
            {() => ({ steps: ctx.input.regions.length * (ctx.input.replicas ?? 2) })}
          </Task>
        </Workflow>
      )),
      { description: "Deploys a version to regions (a form with every kind of field)." },
    ),
  }),
) as unknown as WorkflowSet;
