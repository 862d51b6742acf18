import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createFlow, FlowDb } from "durable-flow";
import { flowProcess } from "../testing/flow-process.js";
import { tempDir } from "../testing/temp-dir.js";
import { createGitVcs } from "./git.js";
import { claimIndex, newIndexOwner, ownedIndex } from "./private-index.js";
import { gitIn, privateIndexOf, tempRepo } from "./testing.js";
import { indexName } from "./workspace.js";

const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));
/** A process id that no running process has (one that just ended). */
const goneProcess = () => spawnSync(process.execPath, ["-e", ""]).pid!;
const flowFiles = (repo: string) => readdirSync(join(repo, ".git", "flow")).filter((name) => name.startsWith("index-")).sort();
const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);
/** This machine's part of an owner's name. */
const HOST = newIndexOwner().split("-")[0]!;

describe("claimIndex", () => {
  it("starts a port's index as a second name of the newest index of the workspace, a live process's included", () => {
    const dir = tempDir("flow-claim-");
    const kept = join(dir, "index-abc");
    const live = ownedIndex(kept, `${HOST}-${process.pid}-900`);
    writeFileSync(kept, "kept");
    writeFileSync(live, "live");
    at(kept, 1_000);
    at(live, 2_000);
    const mine = ownedIndex(kept, `${HOST}-${process.pid}-901`);
    claimIndex(kept, mine);
    expect(statSync(mine).ino).toBe(statSync(live).ino);
    expect(readFileSync(kept, "utf8")).toBe("kept"); // a live process's file is never taken from it

    // A port whose file is there keeps it.
    const second = ownedIndex(kept, `${HOST}-${process.pid}-902`);
    writeFileSync(second, "mine");
    claimIndex(kept, second);
    expect(readFileSync(second, "utf8")).toBe("mine");
  });

  it("takes up what processes that are gone left: the newest becomes the kept index, the rest and their locks go", () => {
    const dir = tempDir("flow-claim-");
    const kept = join(dir, "index-abc");
    const gone = goneProcess();
    writeFileSync(kept, "kept");
    at(kept, 2_000);
    for (const [n, seconds] of [[1, 3_000], [2, 1_000]] as const) {
      writeFileSync(ownedIndex(kept, `${HOST}-${gone}-${n}`), `gone ${n}`);
      at(ownedIndex(kept, `${HOST}-${gone}-${n}`), seconds);
    }
    writeFileSync(`${ownedIndex(kept, `${HOST}-${gone}-1`)}.lock`, "");
    writeFileSync(join(dir, `index-other.${HOST}-1-1`), "another workspace's");
    const mine = ownedIndex(kept, `${HOST}-${process.pid}-903`);
    claimIndex(kept, mine);
    expect(readFileSync(kept, "utf8")).toBe("gone 1");
    expect(statSync(mine).ino).toBe(statSync(kept).ino);
    expect(readdirSync(dir).sort()).toEqual(["index-abc", `index-abc.${HOST}-${process.pid}-903`, `index-other.${HOST}-1-1`]);
  });

  it("judges another machine's files (a container sharing the repository) by their age: gone after a week untouched", () => {
    const dir = tempDir("flow-claim-");
    const kept = join(dir, "index-abc");
    const other = HOST === "00000000" ? "11111111" : "00000000";
    writeFileSync(kept, "kept");
    at(kept, Date.now() / 1000 - 30 * 86_400);
    const [recent, old] = [ownedIndex(kept, `${other}-${process.pid}-1`), ownedIndex(kept, `${other}-${process.pid}-2`)];
    writeFileSync(recent, "recent");
    writeFileSync(old, "old");
    at(recent, Date.now() / 1000 - 86_400);
    at(old, Date.now() / 1000 - 8 * 86_400);
    const mine = ownedIndex(kept, `${HOST}-${process.pid}-907`);
    claimIndex(kept, mine);
    // The old one became the kept index (newer than it); the recent one is left to its machine, and linked from.
    expect(readFileSync(kept, "utf8")).toBe("old");
    expect(existsSync(old)).toBe(false);
    expect(statSync(mine).ino).toBe(statSync(recent).ino);
  });

  it("leaves the port without a file where the workspace has no index yet (its first snapshot seeds one), and never throws", () => {
    const dir = tempDir("flow-claim-");
    const mine = ownedIndex(join(dir, "index-abc"), `${HOST}-${process.pid}-904`);
    claimIndex(join(dir, "index-abc"), mine);
    expect(existsSync(mine)).toBe(false);
    claimIndex(join(dir, "absent", "index-abc"), ownedIndex(join(dir, "absent", "index-abc"), `${HOST}-${process.pid}-905`));
    // `.git/flow` is a file (ENOTDIR on every look): the snapshot that needs the index says what is wrong.
    writeFileSync(join(dir, "flow"), "");
    expect(() => claimIndex(join(dir, "flow", "index-abc"), ownedIndex(join(dir, "flow", "index-abc"), `${HOST}-${process.pid}-906`))).not.toThrow();
  });
});

describe("private indexes across processes", () => {
  it("keeps a process's index for the next one when it exits, and takes up the one a killed process left", async () => {
    const repo = tempRepo();
    const once = (how = "") => {
      const child = spawnSync(process.execPath, ["--import", "tsx", fixture("snapshot-once.ts"), repo, how], { encoding: "utf8", env: { ...process.env, FLOW_SNAPSHOTS: "" } });
      return child;
    };
    const kept = indexName(repo);
    expect(once().status).toBe(0);
    expect(flowFiles(repo)).toEqual([kept]);
    const exited = statSync(join(repo, ".git", "flow", kept)).ino;

    writeFileSync(join(repo, "new.txt"), "new\n");
    expect(once("kill").signal).toBe("SIGKILL");
    const left = flowFiles(repo).filter((name) => name !== kept);
    expect(left).toHaveLength(1); // the killed process's own index, which holds new.txt
    const leftIno = statSync(join(repo, ".git", "flow", left[0]!)).ino;

    // The next port takes it up as the kept index and starts from it.
    await createGitVcs().snapshot(repo, "refs/flow/runs/next/0");
    expect(statSync(join(repo, ".git", "flow", kept)).ino).toBe(leftIno);
    expect(statSync(join(repo, ".git", "flow", kept)).ino).not.toBe(exited);
    expect(flowFiles(repo).filter((name) => name !== kept)).toHaveLength(1); // this port's
    expect(gitIn(repo, "ls-files", "new.txt")).toBe(""); // the user's index never moves
    expect(execFileSync("git", ["-C", repo, "ls-files", "new.txt"], { env: { ...process.env, GIT_INDEX_FILE: privateIndexOf(repo) }, encoding: "utf8" }).trim()).toBe("new.txt");
  }, 60_000);

  it("lets two `flow up` runs edit one repository at once, each attempt's snapshot holding what that run wrote", async () => {
    const repo = tempRepo();
    for (const tag of ["a", "b"]) {
      for (let d = 0; d < 10; d++) {
        mkdirSync(join(repo, `${tag}${d}`));
        for (let f = 0; f < 20; f++) writeFileSync(join(repo, `${tag}${d}`, `f${f}`), `${tag}${d}/f${f} committed\n`);
      }
    }
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-q", "-m", "files");
    const EDITS = 200;
    const runs = ["a", "b"].map((tag) => {
      const dir = tempDir("flow-two-");
      const env = { FLOW_SNAPSHOTS: "", FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_TAG: tag, FLOW_TEST_ROOT: repo, FLOW_TEST_EDITS: String(EDITS), NO_COLOR: "1" };
      return { tag, db: env.FLOW_TEST_DB, process: flowProcess(["up", fixture("edit-workflow.tsx"), "--root-dir", repo, "--log-dir", "none", "--run-id", `two-${tag}`], env, dir) };
    });
    for (const run of runs) expect(await run.process.exited, run.process.output()).toBe(0);

    for (const { tag, db } of runs) {
      const attempts = await new FlowDb(createFlow({}, { dbPath: db }).db).listAttempts(`two-${tag}`);
      expect(attempts).toHaveLength(EDITS);
      // Every file this run wrote up to and including task i, as it wrote it last, in that attempt's end snapshot.
      const wanted: Array<{ object: string; said: string; content: string }> = [];
      for (const attempt of attempts) {
        const i = Number(attempt.nodeId.slice(1));
        expect(attempt.vcsPointer, `t${i}'s snapshot`).toBeTruthy();
        const last = new Map<string, string>();
        for (let j = 0; j <= i; j++) last.set(`${tag}${j % 10}/f${Math.floor(j / 10)}`, `${tag} ${j}`);
        for (const [path, content] of last) wanted.push({ object: `${attempt.vcsPointer}:${path}`, said: `t${i} ${path}`, content });
      }
      const contents = execFileSync("git", ["-C", repo, "cat-file", "--batch"], { input: `${wanted.map((w) => w.object).join("\n")}\n`, encoding: "utf8", maxBuffer: 1 << 28 });
      // --batch prints "<id> blob <size>\n<content>\n" for each: here each content is one line.
      const got = contents.split("\n").filter((_, k) => k % 3 === 1);
      const wrong = wanted.flatMap((w, k) => (got[k] === w.content ? [] : [`${w.said} holds ${JSON.stringify(got[k])}, not ${JSON.stringify(w.content)}`]));
      expect(wrong).toEqual([]);
    }
    // Both processes kept their index at exit: one is left, the newer.
    expect(flowFiles(repo)).toEqual([indexName(repo)]);
  }, 120_000);
});
