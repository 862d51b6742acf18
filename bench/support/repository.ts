/**
 * A directory of `files` files in folders of 100 (`perFolder`), for the snapshot benchmarks; a
 * git repository with them committed when `repo` (its `.flow/` store ignored). `nodeModules`
 * adds an ignored `node_modules` of that many packages (a directory, a `lib` inside it, three
 * files), as a JavaScript project has. `nested`: folders of 10 files, three deep (`d1/d2/d3/`:
 * 1,110 folders for 10,000 files), as a source tree has them (a clone of vite: 2,809 files in
 * 898). Another `perFolder` puts its folders in parents of 100 (`d2/e250/` for folder 250): 1
 * makes a folder per file, a tree with more folders than a watch takes. `excludedBy: "info"`
 * lists `node_modules` in the repository's `.git/info/exclude` instead of its `.gitignore`;
 * `"global"` in a file its `core.excludesFile` names, in a directory of its own (as a home
 * directory's `.gitignore_global`; not `/tmp` itself: watching a directory of 20,000 entries
 * for that file's changes took the kernel 40 ms).
 * @example
 * const dir = benchWorkspace(10_000, true);
 * const js = benchWorkspace(1_000, true, { nodeModules: 1_500 });
 * const tree = benchWorkspace(10_000, true, { nested: true });
 * const wide = benchWorkspace(120_000, true, { perFolder: 1 });
 * const excluded = benchWorkspace(1_000, true, { nodeModules: 1_500, excludedBy: "info" });
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

// gc.auto=0: committing 10,000 loose objects would start a background repack in the middle of the measurement.
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, "-c", "gc.auto=0", ...args], { env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" } });

export function benchWorkspace(files: number, repo: boolean, opts: { nodeModules?: number; nested?: boolean; perFolder?: number; excludedBy?: "gitignore" | "info" | "global" } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "flow-bench-snap-"));
  const perFolder = opts.nested ? 10 : (opts.perFolder ?? 100);
  for (let i = 0; i < files; i++) {
    const file = join(dir, benchFile(i, opts.nested ?? false, perFolder));
    if (i % perFolder === 0) mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, benchFileContent(i));
  }
  for (let p = 0; p < (opts.nodeModules ?? 0); p++) {
    const lib = join(dir, "node_modules", `pkg${p}`, "lib");
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(dir, "node_modules", `pkg${p}`, "package.json"), `{"name":"pkg${p}"}\n`);
    for (const name of ["index.js", "util.js"]) writeFileSync(join(lib, name), `module.exports = ${p};\n`);
  }
  if (repo) {
    git(dir, "init", "-q");
    const by = opts.excludedBy ?? "gitignore";
    writeFileSync(join(dir, ".gitignore"), by === "gitignore" ? ".flow/\nnode_modules/\n" : ".flow/\n");
    if (by === "info") appendFileSync(join(dir, ".git", "info", "exclude"), "node_modules/\n");
    if (by === "global") {
      const file = join(mkdtempSync(join(tmpdir(), "flow-bench-home-")), ".gitignore_global");
      writeFileSync(file, "node_modules/\n");
      git(dir, "config", "core.excludesFile", file);
    }
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "files");
  }
  return dir;
}

/**
 * Where `benchWorkspace` put file `i`, relative to the workspace.
 * @example
 * benchFile(250, false); // "d2/f250.txt"
 * benchFile(250, true); // "d0/d2/d5/f250.txt"
 * benchFile(250, false, 1); // "d2/e250/f250.txt"
 */
export function benchFile(i: number, nested: boolean, perFolder = 100): string {
  const leaf = Math.floor(i / (nested ? 10 : perFolder));
  if (nested) return `d${Math.floor(leaf / 100)}/d${Math.floor(leaf / 10) % 10}/d${leaf % 10}/f${i}.txt`;
  return perFolder === 100 ? `d${leaf}/f${i}.txt` : `d${Math.floor(leaf / 100)}/e${leaf}/f${i}.txt`;
}

/** What `benchWorkspace` wrote in file `i`. */
export function benchFileContent(i: number): string {
  return `file ${i}\n${"x".repeat(900)}\n`;
}
