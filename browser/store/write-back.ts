/**
 * @module browser/store/write-back
 * PGlite on IndexedDB keeps PostgreSQL's files in memory and writes them back to IndexedDB
 * after every statement outside a transaction, and at a transaction's BEGIN and COMMIT
 * (`syncToFs`). Each write-back walks every stored file in IndexedDB (a cursor over about
 * 1,100 entries) before it knows what changed, so a read, which changes no file, costs as much
 * as a write: the page's reads and the engine's polls (a run's row, its usage, the runs to
 * wake) filled the database's queue and a 100-task run took 100 s.
 *
 * Here a write-back first lists the files in memory (path, modification time, size: no
 * IndexedDB work) and is skipped when nothing differs from what the last write-back stored.
 * That is the comparison PGlite's own write-back makes against IndexedDB, so every statement
 * that changed a file is still written back before it answers (no `relaxedDurability`).
 *
 * PGlite (0.5.16) asks for no write-back at COMMIT (its transaction is still open when the
 * COMMIT returns): a committed transaction reached IndexedDB only with the next statement.
 * `committed()` writes it back before the store's `transaction` answers, so a settled task
 * attempt is stored when the engine goes on. See docs/app-browser.md "Storage".
 */
import type { PGlite } from "@electric-sql/pglite";

/** Where PGlite keeps the cluster (`PGDATA`; on IndexedDB, a link to its mount). */
const PGDATA = "/pglite/data";

/** How often the database was written back to its storage, and how often there was nothing to write. */
export interface WriteBackCounts {
  /** Write-backs PGlite asked for (one per statement outside a transaction, BEGIN, COMMIT). */
  asked: number;
  /** Those that found changed files and wrote them back. */
  written: number;
}

/** A node of Emscripten's in-memory file system (MEMFS, which IndexedDB's mount keeps files in). */
interface MemNode {
  mode: number;
  mtime: number | Date;
  usedBytes?: number;
  contents?: unknown;
}

/** The in-memory file system calls the listing needs (Emscripten's `FS`, structurally). */
interface EmscriptenFs {
  lookupPath(path: string, opts: { follow: boolean }): { node: MemNode };
  isDir(mode: number): boolean;
}

/**
 * Every file and directory under PGDATA with its modification time, size and mode, one string
 * per entry, read from the file system's nodes (a path lookup per file, as `lstat` does, costs
 * a hundred times more).
 */
function listing(fs: EmscriptenFs): Map<string, string> {
  const out = new Map<string, string>();
  const pending: [string, MemNode][] = [["", fs.lookupPath(PGDATA, { follow: true }).node]];
  while (pending.length) {
    const [dir, node] = pending.pop()!;
    for (const [name, child] of Object.entries(node.contents as Record<string, MemNode>)) {
      const path = `${dir}/${name}`;
      out.set(path, `${+child.mtime}:${child.usedBytes ?? 0}:${child.mode}`);
      if (fs.isDir(child.mode)) pending.push([path, child]);
    }
  }
  return out;
}

function same(a: Map<string, string> | undefined, b: Map<string, string>): boolean {
  if (!a || a.size !== b.size) return false;
  for (const [path, entry] of b) if (a.get(path) !== entry) return false;
  return true;
}

/**
 * Makes `pglite` skip its write-backs when no file changed since the last one; answers the
 * live counts. `committed()` writes back after a transaction. `restore()` puts PGlite's own write-back back (before `close()`, whose shutdown
 * checkpoint must reach the storage).
 * @example
 * const counts = writeBackOnlyChanges(pglite);
 * await pglite.query("SELECT 1"); // counts.asked 1, counts.written 0
 */
export function writeBackOnlyChanges(pglite: PGlite): WriteBackCounts & { committed(): Promise<void>; restore(): void } {
  const fs = (pglite as unknown as { Module: { FS: EmscriptenFs } }).Module.FS;
  const original = pglite.syncToFs;
  let stored: Map<string, string> | undefined;
  const counts = {
    asked: 0,
    written: 0,
    // In PGlite's query lock, as its own write-backs are: no statement changes a file meanwhile.
    committed: () => pglite.runExclusive(() => pglite.syncToFs()),
    restore: () => {
      pglite.syncToFs = original;
    },
  };
  // PGlite calls it inside its query lock, after the statement: no statement runs meanwhile.
  pglite.syncToFs = async function syncChanged(this: PGlite) {
    counts.asked++;
    const now = listing(fs);
    if (same(stored, now)) return;
    await original.call(pglite);
    stored = now;
    counts.written++;
  };
  return counts;
}
