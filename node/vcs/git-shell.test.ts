import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { GitShell } from "./git-shell.js";

describe.runIf(process.platform !== "win32")("GitShell", () => {
  it("passes every word as it is (quotes, newlines, spaces, $), in the directory and environment asked, with the exit code", async () => {
    const dir = tempDir("flow-shell-");
    const shell = new GitShell(() => process.env);
    const words = ["it's", "two\nlines", "a b", "$HOME", "`x`", ""];
    const printed = await shell.run(dir, ["sh", "-c", 'for w in "$@"; do printf "[%s]" "$w"; done; printf "%s|%s" "$PWD" "$FLOW_X"', "sh", ...words], { FLOW_X: "y'z" });
    expect(printed).toEqual({ output: `${words.map((w) => `[${w}]`).join("")}${dir}|y'z`, code: 0 });
    expect(await shell.run(dir, ["sh", "-c", "echo failed >&2; exit 3"])).toEqual({ output: "failed\n", code: 3 });
    // A script runs in the shell's subshell: its variables exported, its exit code the answer.
    const script = `sh -c 'printf "%s|" "$FLOW_X"'\nprintf "%s|%s" "$PWD" "$(printf 'a\\nb\\n' | wc -l)"\nexit 4`;
    expect(await shell.run(dir, { script }, { FLOW_X: "y'z" })).toEqual({ output: `y'z|${dir}|2`, code: 4 });
    expect((await shell.run(join(dir, "gone"), { script: "true" })).code).toBe(126);
    expect((await shell.run(join(dir, "gone"), ["true"])).code).toBe(126);
    // Commands run one after the other, each answer to its own caller.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => shell.run(dir, ["echo", String(i)])));
    expect(many.map((r) => r.output)).toEqual(Array.from({ length: 20 }, (_, i) => `${i}\n`));
  });

  it("fails the command a dead shell was running, and starts a new shell for the next one", async () => {
    const shell = new GitShell(() => process.env);
    const dir = tempDir("flow-shell-");
    // The command's parent is the shell itself (the command is exec'd in place of its subshell).
    await expect(shell.run(dir, ["sh", "-c", "kill -9 $PPID; sleep 5"])).rejects.toThrow(/exited/);
    expect(await shell.run(dir, ["echo", "again"])).toEqual({ output: "again\n", code: 0 });
  });

  it("lets Node exit while the shell is idle", () => {
    const dir = tempDir("flow-shell-");
    const script = join(dir, "idle.mts");
    writeFileSync(script, `import { GitShell } from ${JSON.stringify(join(import.meta.dirname, "git-shell.ts"))};\nconst r = await new GitShell(() => process.env).run(${JSON.stringify(dir)}, ["echo", "done"]);\nprocess.stdout.write(r.output);\n`);
    // Were the idle shell to hold the event loop, this would never return (the timeout fails it).
    expect(execFileSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 20_000 })).toBe("done\n");
  });
});
