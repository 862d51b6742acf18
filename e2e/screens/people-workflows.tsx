/**
 * Dev workflows for the people views (approvals inbox, memory, scores; docs/app-views-people.md):
 * every kind of wait the inbox handles, and a task that grades its output and writes memory.
 * The screenshot script (e2e/screens/people.ts) registers them beside the app's workflows; add
 * `peopleWorkflows` to `appWorkflows` to try them in `npm start`.
 *
 * - `expense`: a human task (`claim`, a form from its schema), a task that needs approval
 *   (`refund`, a gate), then finance picks how to pay (`payout`, select mode, scope `finance`).
 * - `roadmap`: order three options (`priorities`, rank mode, only `ana` or `bob`).
 * - `deploy`: waits for the signal `ci-done` with a payload schema.
 * - `review`: drafts a text, graded by two scorers, and remembers facts and a note.
 */
import { z } from "zod";
import { approvalRankingSchema, approvalSelectionSchema, createMemoryStore, createScorer, defineWorkflows, type WorkflowSet } from "durable-flow/core";

const lengthScorer = createScorer({
  id: "length",
  name: "Length",
  description: "1 for a draft of 60 words or more, less for shorter ones",
  score: ({ output }) => ({ score: Math.min(1, (output as { words: number }).words / 60), reason: `${(output as { words: number }).words} words` }),
});
const clarityScorer = createScorer({
  id: "clarity",
  name: "Clarity",
  description: "Shorter sentences read more clearly (0 to 1)",
  score: ({ output }) => {
    const { words, sentences } = output as { words: number; sentences: number };
    return Math.max(0, Math.min(1, 1.4 - words / sentences / 25));
  },
});

/** The people views' dev workflows. */
export const peopleWorkflows = defineWorkflows(
  {
    input: z.object({
      employee: z.string().optional().describe("Who files the claim (expense)"),
      topic: z.string().optional().describe("What to draft (review)"),
      words: z.number().int().min(1).max(500).optional().describe("How long the draft is (review)"),
      sentences: z.number().int().min(1).max(50).optional().describe("In how many sentences (review)"),
    }),
    claim: z.object({
      amount: z.number().positive().describe("In EUR"),
      category: z.enum(["travel", "meals", "equipment"]),
      description: z.string().min(3),
    }),
    refund: z.object({ paid: z.boolean() }),
    payout: approvalSelectionSchema,
    priorities: approvalRankingSchema,
    ci: z.object({ green: z.boolean() }),
    draft: z.object({ text: z.string(), words: z.number(), sentences: z.number() }),
    remembered: z.object({ facts: z.number() }),
  },
  (api) => {
    const { flow, Workflow, Task, HumanTask, Approval, Signal, Sequence, outputs } = api;
    const memory = createMemoryStore(api.db);
    return {
      expense: flow((ctx) => (
        <Workflow name="expense">
          <Sequence>
            <HumanTask id="claim" output={outputs.claim} prompt={`${ctx.input.employee ?? "Someone"}: enter the amount, category and a description of the expense`} />
            <Task id="refund" output={outputs.refund} needsApproval label={`Refund ${ctx.input.employee ?? "the claim"}?`}>
              {{ paid: true }}
            </Task>
            <Approval
              id="payout"
              output={outputs.payout}
              mode="select"
              request={{ title: "How should finance pay it?", summary: "Pick the payment route for the approved refund." }}
              options={[
                { key: "payroll", label: "With the next payroll", summary: "End of month, no fees" },
                { key: "transfer", label: "Bank transfer", summary: "In two days" },
                { key: "card", label: "Company card credit", summary: "At once" },
              ]}
              allowedScopes={["finance"]}
            />
          </Sequence>
        </Workflow>
      )),
      roadmap: flow(() => (
        <Workflow name="roadmap">
          <Approval
            id="priorities"
            output={outputs.priorities}
            mode="rank"
            request={{ title: "Rank next quarter's themes", summary: "Best first; the top one gets two teams." }}
            options={[
              { key: "offline", label: "Offline app" },
              { key: "teams", label: "Team workspaces" },
              { key: "evals", label: "Eval dashboards" },
            ]}
            allowedUsers={["ana", "bob"]}
          />
        </Workflow>
      )),
      deploy: flow(() => (
        <Workflow name="deploy">
          <Signal id="ci-done" schema={z.object({ green: z.boolean(), build: z.string().min(1) })}>
            {(ci) => <Task id="ship" output={outputs.ci}>{{ green: ci.green }}</Task>}
          </Signal>
        </Workflow>
      )),
      review: flow((ctx) => {
        const topic = ctx.input.topic ?? "release notes";
        const words = ctx.input.words ?? 40;
        const sentences = ctx.input.sentences ?? 3;
        return (
          <Workflow name="review">
            <Sequence>
              <Task id="draft" output={outputs.draft} scorers={{ length: { scorer: lengthScorer }, clarity: { scorer: clarityScorer } }}>
                {() => ({ text: `A ${words}-word draft about ${topic}.`, words, sentences })}
              </Task>
              <Task id="remember" output={outputs.remembered}>
                {async () => {
                  await memory.enableNoteSearch("workflow");
                  await memory.setFact("workflow:review", `last-topic`, topic);
                  await memory.setFact("workflow:review", `words:${topic}`, { words, sentences });
                  await memory.setFact(`user:${ctx.input.employee ?? "ana"}`, "tone", { formal: words > 50, emoji: false }, 86_400_000);
                  await memory.saveNote({ namespace: "workflow:review", body: `Drafts about ${topic} read best in ${sentences} sentences of about ${Math.round(words / sentences)} words.`, kind: "lesson", author: "review", provenance: { runId: ctx.runId, nodeId: "remember" } });
                  return { facts: 3 };
                }}
              </Task>
            </Sequence>
          </Workflow>
        );
      }),
    };
  },
);

/** As the app lists workflow sets. */
export const peopleWorkflowSets: WorkflowSet[] = [peopleWorkflows] as unknown as WorkflowSet[];
