/**
 * @module node/hot/watch-files
 * Watches a changing set of files for hot reload. It watches their directories, not the files:
 * editors save by writing a new file and renaming it over the old one, which a watch on the
 * old file's inode would miss. Events for other names in those directories are ignored.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, join } from "node:path";

/** A set of watched files; `update` replaces the set. */
export interface FileWatch {
  update(files: readonly string[]): void;
  close(): void;
}

/** Calls `onChange(file)` when one of the watched files is written, created, renamed or deleted. */
export function watchFiles(onChange: (file: string) => void): FileWatch {
  const dirs = new Map<string, { watcher: FSWatcher; names: Set<string> }>();
  let closed = false;

  const open = (dir: string, names: Set<string>) => {
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        const entry = dirs.get(dir);
        if (!entry) return;
        // No name (some platforms): anything in the directory may have changed.
        if (name === null) onChange(dir);
        else if (entry.names.has(name.toString())) onChange(join(dir, name.toString()));
      });
    } catch {
      return; // The directory is gone; the next successful build watches what exists then.
    }
    watcher.on("error", () => {
      watcher.close();
      dirs.delete(dir);
    });
    dirs.set(dir, { watcher, names });
  };

  return {
    update(files) {
      if (closed) return;
      const wanted = new Map<string, Set<string>>();
      for (const file of files) {
        const dir = dirname(file);
        if (!wanted.has(dir)) wanted.set(dir, new Set());
        wanted.get(dir)!.add(basename(file));
      }
      for (const [dir, entry] of dirs) {
        if (!wanted.has(dir)) {
          entry.watcher.close();
          dirs.delete(dir);
        }
      }
      for (const [dir, names] of wanted) {
        const entry = dirs.get(dir);
        if (entry) entry.names = names;
        else open(dir, names);
      }
    },
    close() {
      closed = true;
      for (const entry of dirs.values()) entry.watcher.close();
      dirs.clear();
    },
  };
}
