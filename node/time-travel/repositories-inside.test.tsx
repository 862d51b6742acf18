/**
 * A run whose task clones a repository into its workspace (what an agent fixing a dependency
 * does): git records the clone as the commit its HEAD is at, not its files. The run says so
 * once, and a rewind to before the clone restores the workspace's own files, leaves the clone
 * as it is and names it, where it used to fail on the clone's directory.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, runWorkflow, timeTravel } from "durable-flow";
import { sqliteBackend } from "../testing/backends.js";
import { gitIn, tempRepo, treePicture } from "../vcs/testing.js";

const schemas = { step: z.object({ n: z.number() }) };

describe("a repository cloned into a run's workspace", () => {
  it("is named once as held only by its commit, and a rewind past the clone leaves it whole and says so", async () => {
    const repo = tempRepo();
    const lib = tempRepo();
    writeFileSync(join(lib, "lib.txt"), "lib v1\n");
    gitIn(lib, "add", "lib.txt");
    gitIn(lib, "commit", "-q", "-m", "lib");

    const warnings: string[] = [];
    const opened = await sqliteBackend.open(schemas, { env: { recordSnapshots: true, warn: (message: string) => void warnings.push(message) } });
    const db = new FlowDb(opened.api.db);
    const { flow, Workflow, Task, Sequence, outputs } = opened.api;
    const wf = flow(() => (
      <Workflow name="vendor">
        <Sequence>
          <Task id="clone" output={outputs.step}>
            {() => {
              execFileSync("git", ["clone", "-q", lib, join(repo, "deps", "lib")]);
              writeFileSync(join(repo, "a.txt"), "a1\n");
              return { n: 1 };
            }}
          </Task>
          <Task id="edit" output={outputs.step}>
            {() => {
              writeFileSync(join(repo, "deps", "lib", "lib.txt"), "lib edited\n");
              writeFileSync(join(repo, "a.txt"), "a2\n");
              return { n: 2 };
            }}
          </Task>
        </Sequence>
      </Workflow>
    ));
    const run = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(run.status).toBe("finished");
    // Once, where the clone first showed (the end of `clone`), with what to do; not again at the
    // end of `edit`, whose snapshot holds it too.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Snapshots of ${repo} hold deps/lib only as the commit its HEAD is at`);
    expect(warnings[0]).toContain("Root a run in it (rootDir, or flow up --root-dir)");
    const attempts = await db.listAttempts(run.runId);
    const edit = attempts.find((a) => a.nodeId === "edit")!;
    expect(gitIn(repo, "show", `${edit.vcsPointer}:a.txt`)).toBe("a2");

    const clone = treePicture(join(repo, "deps", "lib"));
    const events: FlowEvent[] = [];
    const back = await timeTravel(db, { runId: run.runId, nodeId: "clone", onProgress: (e) => events.push(e) });
    expect(back).toMatchObject({ success: true, vcsRestored: true, keptRepositories: ["deps/lib"] });
    // The workspace's own file as it was before the clone; the clone, its `.git` and edit kept.
    expect(existsSync(join(repo, "a.txt"))).toBe(false);
    expect(treePicture(join(repo, "deps", "lib"))).toEqual(clone);
    expect(readFileSync(join(repo, "deps", "lib", "lib.txt"), "utf8")).toBe("lib edited\n");
    expect(events.find((e) => e.type === "TimeTravelFinished")).toMatchObject({ keptRepositories: ["deps/lib"] });
    // The event is in the run's log too (what `flow rewind` and the app print from).
    expect((await db.listEvents(run.runId)).find((e) => e.type === "TimeTravelFinished")).toMatchObject({ keptRepositories: ["deps/lib"] });
  });
});
