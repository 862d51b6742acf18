/**
 * Tools in a workflow (docs/tools.md): a compute task uses the built-in `grep` directly to find
 * the TODOs of a repository, then an SDK agent resolves one with the sandboxed built-ins
 * (`read`, `edit`, `bash`, ...) and files a ticket through a tool generated from an OpenAPI
 * description of an issue tracker. The built-ins stay inside the run's `rootDir`, and `bash`
 * has no network unless the run allows it.
 *
 *   OPENAI_API_KEY=... TRACKER_URL=https://tracker.example.com TRACKER_TOKEN=... \
 *   npx flow up examples/tools.tsx --input '{"focus":"parser"}'
 */
import { z } from "zod";
import { createFlow, createOpenApiToolsSync, grep, HostedChatAgent, tools } from "durable-flow";
import type { AgentLike, FlowApi, OpenApiToolsOptions } from "durable-flow";

export const schemas = {
  input: z.object({ focus: z.string() }),
  todos: z.object({ lines: z.array(z.string()) }),
  output: z.object({ summary: z.string(), ticketId: z.number().int() }),
};

/** The part of the tracker's API the agent may use (an OpenAPI 3.0 description). */
export const trackerSpec = {
  openapi: "3.0.3",
  info: { title: "Tracker", version: "1.0.0" },
  servers: [{ url: "https://tracker.example.com/api" }],
  paths: {
    "/tickets": {
      post: {
        operationId: "createTicket",
        summary: "Open a ticket",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/NewTicket" } } },
        },
      },
    },
    "/tickets/{id}": {
      get: { operationId: "getTicket", summary: "Read a ticket", parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }] },
    },
  },
  components: {
    schemas: {
      NewTicket: {
        type: "object",
        required: ["title"],
        properties: { title: { type: "string", maxLength: 120 }, body: { type: "string" }, labels: { type: "array", items: { type: "string" } } },
      },
    },
  },
};

/** The tools of the fixing agent: the five built-ins plus the tracker's `createTicket`. */
export function agentTools(tracker: Pick<OpenApiToolsOptions, "baseUrl" | "auth" | "fetch"> = {}) {
  const ticketTools = createOpenApiToolsSync(trackerSpec, { ...tracker, include: ["createTicket"] });
  return { ...tools, ...ticketTools };
}

/** Builds the workflow on a Flow api with the given agent. */
export function toolsWorkflow(api: FlowApi<typeof schemas>, fixer: AgentLike) {
  const { flow, Workflow, Task, outputs } = api;
  return flow((ctx) => {
    const todos = ctx.outputMaybe(outputs.todos, { nodeId: "find-todos" });
    return (
      <Workflow name="tools">
        <Task id="find-todos" output={outputs.todos}>
          {async () => ({ lines: (await grep.execute({ pattern: `TODO.*${ctx.input.focus}` })).split("\n").filter(Boolean) })}
        </Task>
        <Task id="fix" output={outputs.output} agent={fixer} retries={1}>
          {`Resolve the first of these TODOs: read the file, edit it with a unified diff, check the result with bash, then open a tracker ticket describing the change.\n\n${(todos?.lines ?? []).join("\n")}`}
        </Task>
      </Workflow>
    );
  });
}

export default toolsWorkflow(
  createFlow(schemas),
  new HostedChatAgent({
    id: "fixer",
    model: "gpt-5-mini",
    tools: agentTools({ baseUrl: process.env.TRACKER_URL ?? "https://tracker.example.com/api", auth: { type: "bearer", token: process.env.TRACKER_TOKEN ?? "" } }),
  }),
);
