import { describe, expect, it } from "vitest";
import { changeNote, isRepositoryChange } from "./changes.js";

describe("workspace changes as read by their user", () => {
  it("names a repository inside the workspace as one, and a mode change by its modes; a plain edit needs no note", () => {
    const repo = { path: "deps/lib", oldMode: "160000", newMode: "160000" };
    expect(changeNote({ ...repo, status: "modified" })).toBe("a git repository of its own: its HEAD moved");
    expect(changeNote({ path: "deps/lib", status: "added", newMode: "160000" })).toBe("a git repository of its own: snapshots hold its commit, not its files");
    expect(changeNote({ path: "deps/lib", status: "deleted", oldMode: "160000" })).toBe("a git repository of its own, removed");
    expect(changeNote({ path: "deps/lib", status: "modified", oldMode: "100644", newMode: "160000" })).toBe("now a git repository of its own: snapshots hold its commit, not its files");
    expect(changeNote({ path: "deps/lib", status: "modified", oldMode: "160000", newMode: "100644" })).toBe("was a git repository of its own");
    expect(changeNote({ path: "run.sh", status: "modified", oldMode: "100644", newMode: "100755" })).toBe("mode 100644 -> 100755");
    expect(changeNote({ path: "a.txt", status: "modified", oldMode: "100644", newMode: "100644" })).toBeUndefined();
    expect(changeNote({ path: "a.txt", status: "added", newMode: "100644" })).toBeUndefined();
    expect(isRepositoryChange({ path: "deps/lib", status: "deleted", oldMode: "160000" })).toBe(true);
    expect(isRepositoryChange({ path: "link", status: "added", newMode: "120000" })).toBe(false);
  });
});
