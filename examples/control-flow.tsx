/**
 * Control flow (docs/components.md): release notes for a version, written from its commit
 * subjects. `Parallel` classifies the commits, `Branch` writes a migration guide only when a
 * change breaks something, `Loop` trims the draft until it fits, and a `Sequence` that
 * `skipIf` removes on a dry run tags and announces the release. Compute tasks stand in for
 * agents, so it runs offline in well under a second.
 *
 *   npx flow up examples/control-flow.tsx --input '{"version":"2.0.0","commits":["feat: streaming replies","fix!: drop the v1 API","chore: bump deps"],"maxWords":12}'
 *
 * The store is `.flow/examples/control-flow.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { createFlow } from "durable-flow";
import type { FlowApi } from "durable-flow";

export const schemas = {
  input: z.object({
    version: z.string(),
    /** Conventional-commit subjects: `feat: ...`, `fix: ...`, `fix!: ...` (breaking), `chore: ...`. */
    commits: z.array(z.string()),
    /** Longest acceptable notes, in words (default 40). */
    maxWords: z.number().int().optional(),
    /** Write the notes, but neither tag nor announce. */
    dryRun: z.boolean().optional(),
  }),
  change: z.object({ kind: z.enum(["breaking", "feature", "fix", "chore"]), summary: z.string() }),
  guide: z.object({ steps: z.array(z.string()) }),
  draft: z.object({ text: z.string(), words: z.number().int() }),
  published: z.object({ channel: z.string(), ref: z.string() }),
  output: z.object({ version: z.string(), notes: z.string(), breaking: z.boolean() }),
};

const ORDER = ["breaking", "feature", "fix", "chore"] as const;

/** One commit subject as a classified change. */
export function classify(subject: string): z.infer<typeof schemas.change> {
  const m = /^(\w+)(!)?(?:\([^)]*\))?:\s*(.*)$/.exec(subject.trim());
  const type = m?.[1] ?? "chore";
  const kind = m?.[2] ? "breaking" : type === "feat" ? "feature" : type === "fix" ? "fix" : "chore";
  return { kind, summary: m?.[3] ?? subject };
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The release-notes workflow on an api (the default export uses the example's own store). */
export function releaseNotes(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, Sequence, Parallel, Branch, Loop, outputs } = api;
  return flow((ctx) => {
    const maxWords = ctx.input.maxWords ?? 40;
    const changes = [...ctx.outputs.change].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
    const breaking = changes.filter((c) => c.kind === "breaking");
    const draft = ctx.latest(outputs.draft, "draft");
    const guide = ctx.outputMaybe(outputs.guide, { nodeId: "migration-guide" });
    return (
      <Workflow name="release-notes">
        <Parallel id="classify" maxConcurrency={4}>
          {ctx.input.commits.map((subject, i) => (
            <Task key={i} id={`classify-${i}`} output={outputs.change}>
              {() => classify(subject)}
            </Task>
          ))}
        </Parallel>
        <Branch
          if={breaking.length > 0}
          then={
            <Task id="migration-guide" output={outputs.guide}>
              {() => ({ steps: breaking.map((c) => `Before upgrading to ${ctx.input.version}: ${c.summary}`) })}
            </Task>
          }
          else={
            <Task id="upgrade-note" output={outputs.guide}>
              {{ steps: ["Drop-in upgrade: nothing to change."] }}
            </Task>
          }
        />
        {/* Each pass keeps one line fewer (least important last) until the notes fit. */}
        <Loop id="edit" until={draft !== undefined && draft.words <= maxWords} maxIterations={changes.length + 1}>
          <Task id="draft" output={outputs.draft}>
            {() => {
              const kept = changes.slice(0, Math.max(1, changes.length - ctx.iteration));
              const text = [`${ctx.input.version}:`, ...kept.map((c) => `- ${c.kind}: ${c.summary}`)].join("\n");
              return { text, words: words(text) };
            }}
          </Task>
        </Loop>
        <Task id="notes" output={outputs.output}>
          {() => ({
            version: ctx.input.version,
            notes: [draft?.text ?? "", ...(breaking.length ? ["Migration:", ...(guide?.steps ?? [])] : [])].join("\n"),
            breaking: breaking.length > 0,
          })}
        </Task>
        <Sequence skipIf={ctx.input.dryRun === true}>
          <Task id="tag" output={outputs.published}>
            {{ channel: "git", ref: `v${ctx.input.version}` }}
          </Task>
          <Task id="announce" output={outputs.published}>
            {() => ({ channel: "changelog", ref: `#${ctx.input.version.replaceAll(".", "")}` })}
          </Task>
        </Sequence>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/control-flow.db" });
export default releaseNotes(api);
