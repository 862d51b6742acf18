/**
 * Real English texts the project did not write, for note-search relevance tests and the
 * search benchmark: the README of every package in node_modules and the Linux manual pages of
 * system calls and C library functions (manpages-dev, installed by
 * scripts/setup.d/manpages.sh). Each text comes with a query whose right answer is known
 * independently of any search: a README is found by its package's name and the description in
 * its package.json; a manual page by its name and the one-line summary of its NAME section.
 */
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const MAN_DIRS = ["/usr/share/man/man2", "/usr/share/man/man3"];

export interface Doc {
  id: string;
  body: string;
  query: string;
}

function packageDirs(): string[] {
  const base = join(ROOT, "node_modules");
  const dirs: string[] = [];
  for (const name of readdirSync(base)) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) for (const sub of readdirSync(join(base, name))) dirs.push(join(base, name, sub));
    else dirs.push(join(base, name));
  }
  return dirs.sort();
}

export function readmeDocs(): Doc[] {
  const docs: Doc[] = [];
  for (const dir of packageDirs()) {
    const readme = ["README.md", "readme.md", "Readme.md"].map((f) => join(dir, f)).find((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
    if (!readme) continue;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; description?: string };
    const body = readFileSync(readme, "utf8");
    if (!pkg.name || !pkg.description || body.length < 200) continue;
    docs.push({ id: `npm:${pkg.name}`, body, query: `${pkg.name.replace(/[@/._-]+/g, " ")} ${pkg.description}` });
  }
  return docs;
}

/** Plain text of a troff manual page (good enough for indexing: macros dropped, escapes undone). */
function manText(troff: string): string {
  return troff
    .split("\n")
    .filter((l) => !l.startsWith('.\\"'))
    .map((l) => (l.startsWith(".") ? l.replace(/^\.\S+\s*/, "") : l))
    .join("\n")
    .replace(/\\f[BIRPC]|\\f\(..|\\\(..|\\[&|^]/g, "")
    .replace(/\\-/g, "-");
}

export function manDocs(limit: number): Doc[] {
  const docs: Doc[] = [];
  for (const dir of MAN_DIRS) {
    for (const file of readdirSync(dir).sort()) {
      if (docs.length >= limit) return docs;
      // Symlinked and `.so` pages are aliases of another page: not texts of their own.
      if (!/\.[23]\.gz$/.test(file) || lstatSync(join(dir, file)).isSymbolicLink()) continue;
      const troff = gunzipSync(readFileSync(join(dir, file))).toString("utf8");
      if (troff.startsWith(".so ")) continue; // an alias page
      const name = /\.SH NAME\s*\n([^\n]+)/.exec(troff)?.[1];
      const parts = name?.split(/\s+\\-\s+/);
      if (!parts || parts.length < 2) continue;
      const first = parts[0]!.split(",")[0]!.trim();
      docs.push({ id: `man:${file}`, body: manText(troff), query: `${first} ${parts.slice(1).join(" ")}` });
    }
  }
  return docs;
}

/**
 * The corpus, with each query kept only when its answer is unique: pages that share one NAME
 * summary (for example every page of one X11 library) have no single right answer.
 */
export function buildCorpus(size: number): { docs: Doc[]; queries: Doc[] } {
  const readmes = readmeDocs();
  const docs = [...readmes, ...manDocs(size - readmes.length)];
  const uses = new Map<string, number>();
  for (const d of docs) uses.set(d.query, (uses.get(d.query) ?? 0) + 1);
  return { docs, queries: docs.filter((d) => uses.get(d.query) === 1) };
}
