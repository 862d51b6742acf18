/**
 * The workflows of the app (docs/app.md "Your workflows in the app"): bundled into the browser
 * app, where the engine runs them in a Web Worker over PGlite, and registered by `npm start` in
 * the Gateway over SQLite. Written once with `defineWorkflows`, so each host binds them to its
 * own store. Only portable parts here: compute tasks, approvals, signals, timers (no shell tools
 * or CLI agents, which need a Gateway).
 *
 * To add yours: write a `defineWorkflows(...)` set like these and add it to `appWorkflows`.
 */
import { z } from "zod";
import { approvalDecisionSchema, defineWorkflows, type FlowWorkflow, type WorkflowSet } from "durable-flow/core";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sets the description the app shows beside a workflow. */
const described = <W extends FlowWorkflow>(workflow: W, description: string): W => Object.assign(workflow, { description });

/** `hello`: one compute task. */
export const helloWorkflows = defineWorkflows(
  { input: z.object({ name: z.string().min(1).describe("Who to greet") }), greeting: z.object({ text: z.string() }) },
  ({ flow, Workflow, Task, outputs }) => ({
    hello: described(
      flow((ctx) => (
        <Workflow name="hello">
          <Task id="greet" output={outputs.greeting}>{() => ({ text: `Hello, ${ctx.input.name}!` })}</Task>
        </Workflow>
      )),
      "Greets someone: one compute task.",
    ),
  }),
);

/** `release`: build, parallel test shards, a person approves, deploy. */
export const releaseWorkflows = defineWorkflows(
  {
    input: z.object({
      service: z.string().min(1).describe("The service to release"),
      shards: z.number().int().min(1).max(50).optional().describe("Test shards run in parallel (default 4)"),
      workMs: z.number().int().min(0).max(60_000).optional().describe("How long each step works, in ms (default 300)"),
    }),
    build: z.object({ artifact: z.string(), sizeKb: z.number() }),
    shard: z.object({ shard: z.number(), passed: z.number(), failed: z.number() }),
    decision: approvalDecisionSchema,
    deploy: z.object({ service: z.string(), url: z.string() }),
  },
  ({ flow, Workflow, Task, Sequence, Parallel, Approval, outputs }) => ({
    release: described(
      flow((ctx) => {
        const service = ctx.input.service;
        const workMs = ctx.input.workMs ?? 300;
        const shards = Array.from({ length: ctx.input.shards ?? 4 }, (_, i) => i);
        return (
          <Workflow name="release">
            <Sequence>
              <Task id="build" output={outputs.build}>
                {async () => {
                  await wait(workMs);
                  return { artifact: `${service}-${ctx.runId.slice(0, 8)}.tgz`, sizeKb: 2048 };
                }}
              </Task>
              <Parallel>
                {shards.map((shard) => (
                  <Task id={`test-${shard}`} output={outputs.shard}>
                    {async () => {
                      await wait(workMs * (1 + (shard % 3)));
                      return { shard, passed: 40 + shard, failed: 0 };
                    }}
                  </Task>
                ))}
              </Parallel>
              <Approval id="ship" output={outputs.decision} request={{ title: `Ship ${service} to production?`, summary: `${shards.length} test shards passed.` }} />
              <Task id="deploy" output={outputs.deploy}>
                {async () => {
                  await wait(workMs);
                  return { service, url: `https://${service}.example.com` };
                }}
              </Task>
            </Sequence>
          </Workflow>
        );
      }),
      "Builds, tests in parallel shards, waits for a person to approve, deploys.",
    ),
  }),
);

/** `pipeline`: a chain of compute tasks (the browser benchmark's 100-task workflow). */
export const pipelineWorkflows = defineWorkflows(
  {
    input: z.object({
      tasks: z.number().int().min(1).max(10_000).optional().describe("How many tasks run one after another (default 100)"),
      workMs: z.number().int().min(0).max(60_000).optional().describe("How long each task works, in ms (default 0)"),
    }),
    step: z.object({ index: z.number(), value: z.number() }),
  },
  ({ flow, Workflow, Task, Sequence, outputs }) => ({
    pipeline: described(
      flow((ctx) => (
        <Workflow name="pipeline">
          <Sequence>
            {Array.from({ length: ctx.input.tasks ?? 100 }, (_, index) => (
              <Task id={`step-${index}`} output={outputs.step}>
                {async () => {
                  if (ctx.input.workMs) await wait(ctx.input.workMs);
                  return { index, value: index * index };
                }}
              </Task>
            ))}
          </Sequence>
        </Workflow>
      )),
      "A chain of compute tasks (default 100), one after another.",
    ),
  }),
);

/** Every workflow set of the app, in the order the app lists them. */
export const appWorkflows: WorkflowSet[] = [helloWorkflows, releaseWorkflows, pipelineWorkflows] as unknown as WorkflowSet[];
