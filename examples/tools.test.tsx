/**
 * The tools example end to end on a real SQLite store and a real git repository: a compute task
 * greps the TODOs; an SDK agent (the real AI SDK provider against a local server speaking the
 * OpenAI protocol, scripted to call tools) reads and patches a file, checks it with git through
 * `bash`, and opens a ticket through the OpenAPI tool on a local tracker server.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { createFlow, HostedChatAgent, runWorkflow } from "durable-flow";
import { startProviderServer, type ProviderServer } from "../node/agents/testing/provider-server.js";
import { startTestServer, type TestServer } from "../node/tools/testing.js";

const servers: Array<ProviderServer | TestServer> = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

const BEFORE = "// TODO(parser): handle empty input\nexport function parse(s: string) {\n  return s.split(\",\");\n}\n";
const AFTER = "export function parse(s: string) {\n  return s === \"\" ? [] : s.split(\",\");\n}\n";
const PATCH = [
  "--- a/src/parser.ts",
  "+++ b/src/parser.ts",
  "@@ -1,4 +1,3 @@",
  "-// TODO(parser): handle empty input",
  " export function parse(s: string) {",
  '-  return s.split(",");',
  '+  return s === "" ? [] : s.split(",");',
  " }",
  "",
].join("\n");

describe("examples/tools.tsx", () => {
  it("greps, patches, checks with git and files a ticket through an OpenAPI tool", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "flow-tools-example-")));
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "parser.ts"), BEFORE);
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { cwd: dir, encoding: "utf8" });
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
    const cwd = process.cwd();
    onTestFinished(() => process.chdir(cwd)); // other files share this process (vite.config.ts)
    process.chdir(dir); // the built-ins default to the working directory as rootDir
    const { schemas, toolsWorkflow, agentTools } = await import("./tools.js");

    const tracker = await startTestServer((req, res) => {
      if (req.method !== "POST" || req.path !== "/api/tickets" || req.headers.authorization !== "Bearer trk") return void res.writeHead(400).end();
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id: 42, ...JSON.parse(req.body) }));
    });
    const model = await startProviderServer([
      { toolCalls: [{ id: "c1", name: "read", args: { path: "src/parser.ts" } }] },
      { toolCalls: [{ id: "c2", name: "edit", args: { path: "src/parser.ts", patch: PATCH } }] },
      { toolCalls: [{ id: "c3", name: "bash", args: { cmd: "git", args: ["diff", "--stat"] } }] },
      { toolCalls: [{ id: "c4", name: "createTicket", args: { body: { title: "Parser: handle empty input", labels: ["parser"] } } }] },
      { text: '```json\n{"summary":"parse(\\"\\") now returns []","ticketId":42}\n```' },
    ]);
    servers.push(tracker, model);

    const api = createFlow(schemas, { dbPath: join(dir, ".flow", "example.db") });
    const fixer = new HostedChatAgent({ id: "fixer", model: "gpt-test", baseURL: model.url, apiKey: "sk", nativeStructuredOutput: false, tools: agentTools({ baseUrl: `${tracker.url}/api`, auth: { type: "bearer", token: "trk" } }) });
    const run = await runWorkflow(toolsWorkflow(api, fixer), { input: { focus: "parser" } });

    expect(run.status).toBe("finished");
    expect(run.output).toEqual({ summary: 'parse("") now returns []', ticketId: 42 });
    expect(readFileSync(join(dir, "src", "parser.ts"), "utf8")).toBe(AFTER);
    const prompt = JSON.stringify(model.requests[0]!.body);
    expect(prompt).toContain("src/parser.ts:1:// TODO(parser): handle empty input");
    // Each tool result went back to the model: the file, "ok", git's summary, the ticket.
    const toolResults = (i: number) => JSON.stringify(model.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "tool"));
    expect(toolResults(1)).toContain("TODO(parser)");
    expect(toolResults(2)).toContain("ok");
    expect(toolResults(3)).toContain("1 file changed, 1 insertion(+), 2 deletions(-)");
    expect(toolResults(4)).toContain('\\"id\\":42');
    expect(tracker.requests).toHaveLength(1);
    expect(JSON.parse(tracker.requests[0]!.body)).toEqual({ title: "Parser: handle empty input", labels: ["parser"] });
  });
});
