/**
 * The workflows of the app (docs/app.md "Your workflows in the app"): bundled into the browser
 * app, where the engine runs them in a Web Worker over PGlite, and registered by `npm start` in
 * the Gateway over SQLite. Written once with `defineWorkflows`, so each host binds them to its
 * own store. Only portable parts here: compute tasks, approvals, human tasks, signals, child
 * runs, scorers, an SDK agent with the HTTP tool and memory (no shell tools or CLI agents,
 * which need a Gateway). Together they fill every view of the app: `release` the approvals
 * inbox, `newsletter` the Human tasks tab, "Send a signal" and the links between a run and its
 * child run (`draft`), whose scorer fills Scores, and `assistant` memory.
 *
 * To add yours: write a `defineWorkflows(...)` set like these and add it to `appWorkflows`.
 */
import { z } from "zod";
import { approvalDecisionSchema, createHttpTool, createMemoryStore, createScorer, defineWorkflows, FlowError, LocalServerAgent, type AgentLike, type FlowWorkflow, type WorkflowSet } from "durable-flow/core";

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

/** What the `newsletter` waits for before it sends: the signal `send`, with the list to send to. */
const sendSignal = z.object({ list: z.string().min(1).describe("The mailing list to send to, such as weekly") });

/** Sentences a draft is made of, taken in turn until it has the words asked for. */
const draftSentences = (topic: string) => [
  `This month is about ${topic}.`,
  `Here is what changed, what it means for you, and what comes next.`,
  `The team shipped the parts you asked for most.`,
  `Try it today and tell us what you think.`,
];
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Grades a draft live (the Scores view): 1 when it has exactly the words asked for, less the longer it runs. */
const onLengthScorer = createScorer({
  id: "on-length",
  name: "On length",
  description: "1 when the draft has the words asked for, less the more it runs over",
  score: ({ output }) => {
    const { words, asked } = output as { words: number; asked: number };
    return { score: Math.min(1, asked / words), reason: `${words} words for ${asked} asked` };
  },
});

/**
 * `draft` and `newsletter`: a child run, a scorer, a human task and a signal. `draft` writes a
 * short text about a topic, graded by the `on-length` scorer; `newsletter` runs `draft` as a
 * child run (`Subflow`), asks a person for a headline (`HumanTask`), then waits for the signal
 * `send` (`Signal`) before it sends.
 */
export const newsletterWorkflows = defineWorkflows(
  {
    input: z.object({
      topic: z.string().min(1).describe("What the text is about"),
      words: z.number().int().min(5).max(400).optional().describe("How long the draft is, in words (default 60)"),
    }),
    article: z.object({ text: z.string(), words: z.number(), asked: z.number() }),
    edit: z.object({ headline: z.string().min(1).max(80).describe("The headline readers see") }),
    sent: z.object({ list: z.string(), headline: z.string(), words: z.number() }),
  },
  ({ flow, Workflow, Task, Sequence, Subflow, HumanTask, Signal, outputs }) => {
    const draft = described(
      flow(
        (ctx) => (
          <Workflow name="draft">
            <Task id="write" output={outputs.article} scorers={{ "on-length": { scorer: onLengthScorer } }}>
              {() => {
                const sentences = draftSentences(ctx.input.topic);
                const asked = ctx.input.words ?? 60;
                const text: string[] = [];
                while (wordCount(text.join(" ")) < asked) text.push(sentences[text.length % sentences.length]!);
                return { text: text.join(" "), words: wordCount(text.join(" ")), asked };
              }}
            </Task>
          </Workflow>
        ),
        { output: outputs.article },
      ),
      "Writes a short text about a topic; the on-length scorer grades it (see Scores).",
    );
    const newsletter = described(
      flow(
        (ctx) => {
          const article = ctx.outputMaybe(outputs.article, { nodeId: "draft" });
          const edit = ctx.outputMaybe(outputs.edit, { nodeId: "edit" });
          const input = { topic: ctx.input.topic, ...(ctx.input.words !== undefined ? { words: ctx.input.words } : {}) };
          return (
            <Workflow name="newsletter">
              <Sequence>
                <Subflow id="draft" label="Draft it in a child run" workflow={draft} input={input} output={outputs.article} retries={0} />
                <HumanTask id="edit" output={outputs.edit} prompt={`Give this draft about ${ctx.input.topic} a headline:\n\n${article?.text ?? ""}`} />
                <Signal id="send" label="Wait for the signal send" schema={sendSignal}>
                  {(go) => (
                    <Task id="deliver" output={outputs.sent}>
                      {{ list: go.list, headline: edit?.headline ?? "", words: article?.words ?? 0 }}
                    </Task>
                  )}
                </Signal>
              </Sequence>
            </Workflow>
          );
        },
        { output: outputs.sent },
      ),
      "Drafts a text in a child run (draft), asks a person for its headline, then sends it when the signal send arrives.",
    );
    return { draft, newsletter };
  },
);

/** An environment variable: the Gateway's, or in the browser a key saved in Settings (browser/keys.ts). */
const envVar = (name: string): string | undefined => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] || undefined;
/** True in the browser's engine worker (keys come from Settings there, not from the environment). */
const inBrowser = () => typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined" || typeof (globalThis as { document?: unknown }).document !== "undefined";

/**
 * `assistant`: an SDK agent on an OpenAI-compatible endpoint (`FLOW_LOCAL_BASE_URL`, with
 * `FLOW_LOCAL_API_KEY` and `FLOW_LOCAL_MODEL`) answers a question, fetching the URL with the
 * HTTP tool when one is given; the question and answer are kept in memory (namespace
 * `workflow:assistant`: a note per run, the fact `lastQuestion`).
 */
export const assistantWorkflows = defineWorkflows(
  {
    input: z.object({
      question: z.string().min(1).describe("What to ask"),
      url: z.string().url().optional().describe("A page the agent reads with the HTTP tool (optional)"),
    }),
    answer: z.object({ answer: z.string() }),
    remembered: z.object({ noteId: z.string() }),
  },
  (api) => {
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const memory = createMemoryStore(api.db);
    const ns = { kind: "workflow", id: "assistant" } as const;
    const http = createHttpTool();
    // The endpoint is read when the task runs (not when the workflow renders), so a key saved
    // in Settings a moment ago counts, and a missing one fails the task saying where to set it.
    const assistantAgent: AgentLike = {
      id: "assistant",
      tools: { http },
      preflight: async () => {
        if (envVar("FLOW_LOCAL_BASE_URL")) return;
        throw new FlowError(
          "AGENT_CONFIG_INVALID",
          inBrowser()
            ? "The assistant has no model endpoint. Open Settings and set FLOW_LOCAL_BASE_URL (and FLOW_LOCAL_API_KEY, FLOW_LOCAL_MODEL if the endpoint asks), then re-run."
            : "The assistant has no model endpoint. Start the Gateway with FLOW_LOCAL_BASE_URL (and FLOW_LOCAL_API_KEY, FLOW_LOCAL_MODEL if the endpoint asks) in its environment, then re-run.",
          { option: "FLOW_LOCAL_BASE_URL" },
        );
      },
      generate: (args) => new LocalServerAgent({ id: "assistant", model: envVar("FLOW_LOCAL_MODEL"), tools: { http } }).generate(args),
    };
    return {
      assistant: described(
        flow((ctx) => {
          const answer = ctx.outputMaybe(outputs.answer, { nodeId: "answer" });
          const prompt = ctx.input.url ? `Answer the question, reading ${ctx.input.url} with the http tool first.\n\nQuestion: ${ctx.input.question}` : `Answer the question.\n\nQuestion: ${ctx.input.question}`;
          return (
            <Workflow name="assistant">
              <Sequence>
                <Task id="answer" output={outputs.answer} agent={assistantAgent} timeoutMs={120_000}>
                  {prompt}
                </Task>
                <Task id="remember" output={outputs.remembered}>
                  {async () => {
                    const note = await memory.saveNote({
                      namespace: ns,
                      body: `Q: ${ctx.input.question}\nA: ${answer?.answer ?? ""}`,
                      kind: "answer",
                      author: "assistant",
                      provenance: { runId: ctx.runId, nodeId: "remember", iteration: ctx.iteration },
                      id: `${ctx.runId}:answer`, // a retried task does not save twice
                    });
                    await memory.setFact(ns, "lastQuestion", ctx.input.question);
                    return { noteId: note.id };
                  }}
                </Task>
              </Sequence>
            </Workflow>
          );
        }),
        "Answers a question with an agent on your model endpoint (keys in Settings), reading a URL with the HTTP tool; remembers the answer.",
      ),
    };
  },
);

/** Every workflow set of the app, in the order the app lists them. */
export const appWorkflows: WorkflowSet[] = [helloWorkflows, releaseWorkflows, pipelineWorkflows, newsletterWorkflows, assistantWorkflows] as unknown as WorkflowSet[];
