/**
 * Time travel (docs/time-travel.md): a run whose tasks change files in a git repository,
 * rolled back to a task attempt (files and rows together), resumed so that only that task and
 * what came after it run again, then forked with an edited input.
 *
 *   npx tsx examples/time-travel.tsx
 *
 * `main()` makes a throwaway repository, runs the workflow there with `rootDir`, and prints
 * what each step did. From the command line, in a repository of your own (with `.flow/` in
 * its .gitignore), the same steps are:
 *
 *   npx flow up examples/time-travel.tsx --input '{"title":"Draft"}' --run-id tt1
 *   npx flow timeline tt1 --workflow examples/time-travel.tsx
 *   npx flow rewind tt1 review --workflow examples/time-travel.tsx
 *   npx flow up examples/time-travel.tsx --run-id tt1 --resume
 *   npx flow fork examples/time-travel.tsx tt1 review --input '{"title":"Final"}'
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createFlow, FlowDb, forkRun, runWorkflow, timeTravel } from "durable-flow";

export const schemas = {
  input: z.object({ title: z.string() }),
  doc: z.object({ file: z.string(), words: z.number() }),
};

const { flow, Workflow, Task, Sequence, outputs } = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/time-travel.db" });

/** Which tasks ran, in order (to show that a resume after a rewind runs only what was reset). */
export const ran: string[] = [];

/** Tasks write in the run's working directory (`rootDir`, the current directory under `flow up`). */
export const workflow = flow((ctx) => {
  const dir = process.env.FLOW_EXAMPLE_ROOT ?? process.cwd();
  return (
    <Workflow name="time-travel">
      <Sequence>
        <Task id="draft" output={outputs.doc}>
          {() => {
            ran.push("draft");
            writeFileSync(join(dir, "doc.md"), `# ${ctx.input.title}\n\nfirst draft\n`);
            return { file: "doc.md", words: 4 };
          }}
        </Task>
        <Task id="review" output={outputs.doc}>
          {() => {
            ran.push("review");
            const text = readFileSync(join(dir, "doc.md"), "utf8").replace("first draft", "reviewed text");
            writeFileSync(join(dir, "doc.md"), text);
            writeFileSync(join(dir, "review-notes.md"), `reviewed: ${ctx.input.title}\n`);
            return { file: "doc.md", words: text.split(/\s+/).filter(Boolean).length };
          }}
        </Task>
        <Task id="publish" output={outputs.doc}>
          {() => {
            ran.push("publish");
            writeFileSync(join(dir, "published.md"), readFileSync(join(dir, "doc.md")));
            return { file: "published.md", words: 0 };
          }}
        </Task>
      </Sequence>
    </Workflow>
  );
});

export default workflow;

/** Run, rewind to "review", resume, fork; returns what happened at each step. */
export async function main(): Promise<{ afterRewind: { notes: boolean; published: boolean }; resumed: string[]; forked: string[]; forkTitle: string }> {
  const repo = mkdtempSync(join(tmpdir(), "flow-time-travel-"));
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Flow example", "-c", "user.email=flow@example.invalid", ...args], { cwd: repo });
  git("init", "-q");
  writeFileSync(join(repo, ".gitignore"), ".flow/\n");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  process.env.FLOW_EXAMPLE_ROOT = repo;

  const first = await runWorkflow(workflow, { input: { title: "Draft" }, rootDir: repo });
  console.log(`run ${first.runId}: ${first.status}, ran ${ran.join(", ")}`);

  // Back to the review attempt: files as they were when it started, review and publish pending.
  const rewound = await timeTravel(new FlowDb(workflow), { runId: first.runId, nodeId: "review" });
  const afterRewind = { notes: existsSync(join(repo, "review-notes.md")), published: existsSync(join(repo, "published.md")) };
  console.log(`rewound: ${rewound.success}, reset ${rewound.resetNodes.join(", ")}, files from ${rewound.vcsPointer?.slice(0, 12)}`, afterRewind);

  ran.length = 0;
  await runWorkflow(workflow, { runId: first.runId, resume: true, rootDir: repo });
  const resumed = [...ran];
  console.log(`resumed: ran ${resumed.join(", ")}`);

  // A new run from the review attempt with another title; the original run stays as it is.
  ran.length = 0;
  const fork = await forkRun(workflow, { runId: first.runId, nodeId: "review", input: { title: "Final" }, rootDir: repo });
  console.log(`fork ${fork.runId}: ${fork.status}, ran ${ran.join(", ")}`);
  return { afterRewind, resumed, forked: [...ran], forkTitle: readFileSync(join(repo, "review-notes.md"), "utf8").trim() };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
