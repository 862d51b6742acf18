/**
 * @module node/cli/init/project-files
 * The files `flow init` writes (docs/package.md): a package.json whose scripts run, test and
 * type-check the workflow, a tsconfig.json for Flow's JSX, a first workflow, an agent-backed
 * one, their test (the agent's model answers scripted with `durable-flow/testing`) with a vitest
 * config that keeps test runs out of the local store, a `.gitignore` for that store and a README. Versions come from the durable-flow package
 * doing the scaffolding, so a new project starts on the set Flow itself was tested with.
 */

/** What the templates are filled with. */
export interface ProjectTemplateInput {
  /** The package name of the new project. */
  name: string;
  /** durable-flow's own version (the new project depends on `^<version>`). */
  flowVersion: string;
  /** Exact versions of zod, typescript, vitest and @types/node. */
  versions: Record<"zod" | "typescript" | "vitest" | "@types/node", string>;
}

/**
 * The new project's files, by path relative to its directory.
 * @example
 * const files = projectFiles({ name: "my-flow", flowVersion: "0.1.0", versions });
 * writeFileSync("workflow.tsx", files["workflow.tsx"]!);
 */
export function projectFiles(input: ProjectTemplateInput): Record<string, string> {
  return {
    "package.json": packageJson(input),
    "tsconfig.json": `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    "workflow.tsx": WORKFLOW,
    "agent.tsx": AGENT_WORKFLOW,
    "workflow.test.ts": WORKFLOW_TEST,
    "vitest.config.ts": VITEST_CONFIG,
    ".gitignore": "node_modules/\n.flow/\n",
    "README.md": readme(input.name),
  };
}

/** The test script `npm init -y` writes. */
const NPM_INIT_TEST = 'echo "Error: no test specified" && exit 1';

/**
 * `flow init` in a project that has a package.json already (`npm init -y`, then
 * `npm install <durable-flow tarball> zod`): the scaffold's scripts, dependencies and
 * devDependencies are added where the project has none of that name, so a dependency already
 * installed (a tarball's `file:` spec) is kept; every other field stays as it is, but for the
 * module type of a package.json that `npm init -y` just wrote (it becomes `"type": "module"`).
 * @example
 * mergePackageJson(readFileSync("package.json", "utf8"), projectFiles(input)["package.json"]!);
 */
export function mergePackageJson(existing: string, scaffold: string): string {
  const mine = JSON.parse(existing) as Record<string, unknown>;
  const theirs = JSON.parse(scaffold) as Record<string, Record<string, string>>;
  // A package.json fresh from `npm init -y` (its placeholder test script untouched) holds no code
  // of the user's yet: it becomes ESM like the scaffold. Any other keeps its module type.
  const fresh = ((mine.scripts ?? {}) as Record<string, string>).test === NPM_INIT_TEST;
  if (fresh) mine.type = "module";
  for (const section of ["scripts", "dependencies", "devDependencies"] as const) {
    const have = { ...((mine[section] ?? {}) as Record<string, string>) };
    // `npm init`'s placeholder test script is no test of the user's: the scaffold's replaces it.
    if (section === "scripts" && have.test === NPM_INIT_TEST) delete have.test;
    mine[section] = { ...theirs[section], ...have };
  }
  return `${JSON.stringify(mine, null, 2)}\n`;
}

/** A valid npm package name from a directory name. */
export function packageNameFor(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._-]+|-+$/g, "");
  return name || "my-flow";
}

function packageJson({ name, flowVersion, versions }: ProjectTemplateInput): string {
  const pkg = {
    name,
    version: "0.0.0",
    private: true,
    type: "module",
    scripts: {
      start: `flow up workflow.tsx --input '{"name":"world"}'`,
      test: "tsc --noEmit && vitest run",
      typecheck: "tsc --noEmit",
    },
    dependencies: { "durable-flow": `^${flowVersion}`, zod: versions.zod },
    devDependencies: { "@types/node": versions["@types/node"], typescript: versions.typescript, vitest: versions.vitest },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** JSX from durable-flow, ESM with bundler resolution (tsx, Vite and vitest all read it). */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2023",
    lib: ["ES2023", "DOM"],
    module: "ESNext",
    moduleResolution: "bundler",
    jsx: "react-jsx",
    jsxImportSource: "durable-flow",
    strict: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    types: ["node"],
  },
  include: ["**/*.ts", "**/*.tsx"],
  exclude: ["node_modules", ".flow"],
};

/** Tests run on a store of each test file's own, in memory: `npm test` leaves no runs in `.flow/flow.db`. */
const VITEST_CONFIG = `import { defineConfig } from "vitest/config";

// createFlow opens the store FLOW_DB_PATH names: each test file's workflows get one of their own
// in memory, so \`npm test\` leaves no runs in .flow/flow.db (what \`npm start\` and \`flow runs\` use).
export default defineConfig({ test: { env: { FLOW_DB_PATH: ":memory:" } } });
`;

const WORKFLOW = `/**
 * A first Flow workflow: greet someone, then measure the greeting. Each Task stores one row in
 * the table made from its output schema (.flow/flow.db), so a run survives a crash and resumes
 * where it stopped. Run it with \`npm start\`; swap a compute function for a prompt and give the
 * Task an \`agent\` to call a model.
 */
import { z } from "zod";
import { createFlow } from "durable-flow";

const { flow, Workflow, Task, outputs } = createFlow({
  input: z.object({ name: z.string() }),
  greeting: z.object({ text: z.string() }),
  output: z.object({ text: z.string(), words: z.number().int() }),
});

export default flow((ctx) => (
  <Workflow name="hello">
    <Task id="greet" output={outputs.greeting}>
      {() => ({ text: \`Hello, \${ctx.input.name}!\` })}
    </Task>
    <Task id="measure" output={outputs.output} deps={{ greet: outputs.greeting }}>
      {(deps) => ({ text: deps.greet.text, words: deps.greet.text.split(/\\s+/).length })}
    </Task>
  </Workflow>
));
`;

const AGENT_WORKFLOW = `/**
 * An agent-backed workflow: a model answers in a Task's output schema, calling a tool on the
 * way. \`weatherWorkflow(agent)\` takes the agent, so the test can point one at a scripted
 * local model (workflow.test.ts); run the default with a real model:
 * \`OPENAI_API_KEY=... npx flow up agent.tsx --input '{"city":"Oslo"}'\`.
 */
import { z } from "zod";
import { createFlow, defineTool, HostedChatAgent } from "durable-flow";
import type { AgentLike } from "durable-flow";

/** A tool the model may call; a real one would ask a weather service. */
export const lookup = defineTool({
  name: "lookup",
  description: "Current temperature of a city, in degrees Celsius",
  schema: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: city === "Oslo" ? 21 : 15 }),
});

export function weatherWorkflow(agent: AgentLike) {
  const { flow, Workflow, Task, outputs } = createFlow({
    input: z.object({ city: z.string() }),
    output: z.object({ city: z.string(), tempC: z.number(), advice: z.string() }),
  });
  return flow((ctx) => (
    <Workflow name="weather">
      <Task id="forecast" output={outputs.output} agent={agent}>
        {\`What is the weather in \${ctx.input.city}? Use the lookup tool, then give one line of advice.\`}
      </Task>
    </Workflow>
  ));
}

export default weatherWorkflow(new HostedChatAgent({ model: "gpt-5-mini", tools: { lookup } }));
`;

const WORKFLOW_TEST = `import { afterAll, describe, expect, it } from "vitest";
import { HostedChatAgent, runWorkflow } from "durable-flow";
import { startProviderServer } from "durable-flow/testing";
import type { ProviderServer } from "durable-flow/testing";
import workflow from "./workflow.js";
import { lookup, weatherWorkflow } from "./agent.js";

describe("workflow.tsx", () => {
  it("greets by name and counts the words", async () => {
    const result = await runWorkflow(workflow, { input: { name: "Ada Lovelace" } });
    expect(result.status).toBe("finished");
    expect(result.output).toEqual({ text: "Hello, Ada Lovelace!", words: 3 });
  });
});

describe("agent.tsx", () => {
  const servers: ProviderServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it("answers from a scripted model that calls the lookup tool", async () => {
    // A local server speaking OpenAI's API, answering from a script: first a tool call, then
    // the final answer (the agent sends the tool's result in between).
    const server = await startProviderServer([
      { toolCalls: [{ id: "call_1", name: "lookup", args: { city: "Oslo" } }] },
      { text: JSON.stringify({ city: "Oslo", tempC: 21, advice: "No coat needed." }) },
    ]);
    servers.push(server);
    const agent = new HostedChatAgent({ model: "gpt-5-mini", baseURL: server.url, apiKey: "test", tools: { lookup } });
    const result = await runWorkflow(weatherWorkflow(agent), { input: { city: "Oslo" } });
    expect(result.status).toBe("finished");
    expect(result.output).toEqual({ city: "Oslo", tempC: 21, advice: "No coat needed." });
    // The model got the tool's result in its second request.
    const toolMessage = server.requests[1]!.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(toolMessage.content).toContain('"tempC":21');
  });
});
`;

function readme(name: string): string {
  return `# ${name}

A durable workflow made with Flow (\`durable-flow\`).

- \`npm start\`: runs \`workflow.tsx\` (\`flow up\`), storing the run in \`.flow/flow.db\`
- \`npm test\`: type-checks and runs \`workflow.test.ts\` (the agent's model scripted with \`durable-flow/testing\`)
- \`agent.tsx\`: an agent-backed workflow with a tool; \`OPENAI_API_KEY=... npx flow up agent.tsx --input '{"city":"Oslo"}'\`
- \`npx flow runs\`: lists the runs; \`npx flow --help\` shows every command
`;
}
