/**
 * @module node/vcs/git-shell
 * One long-lived `sh` that starts a VCS port's hot git commands (docs/time-travel.md "When a
 * snapshot is taken"): an editing snapshot's `git add`, and `prepare`'s first snapshot. Starting
 * a process from Node blocks its event loop until the child has exec'd (libuv forks the whole
 * Node process and waits), which on a busy machine was most of an editing snapshot's time in
 * Node; `sh` forks a small process instead, and Node only writes a line to a pipe.
 *
 * Protocol: one command per line, its words single-quoted (a newline in a word is `$nl`),
 * run as `(cd <dir> || exit 126; VAR=... exec <command>) </dev/null 2>&1` (a script: `(cd <dir>
 * || exit 126; export VAR=...; eval <script>)`, which spares starting another `sh`: on these
 * machines each process started costs milliseconds of page faults); its output (stdout
 * and stderr), then `\n<token> <exit code>\n`, `token` being random per shell. A shell that dies fails what
 * it was running; the next command starts a new one. It keeps Node alive only while a command
 * runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

const LOOP = `nl='
'
while IFS= read -r line; do
  eval "$line"
  printf '\\n%s %s\\n' "$FLOW_END" "$?"
done`;

/** What a command printed (stdout and stderr together) and its exit code. */
export interface ShellResult {
  output: string;
  code: number;
}

/**
 * A shell started on first use with `env`, running commands one after the other.
 * @example
 * const shell = new GitShell(() => process.env);
 * const { code } = await shell.run("/repo", ["git", "add", "-A", "--", "a.txt"], { GIT_INDEX_FILE: "/repo/.git/flow/index-1" });
 */
export class GitShell {
  private child: ChildProcess | undefined;
  private token = "";
  private buffer = "";
  private readonly pending: Array<{ resolve(result: ShellResult): void; reject(error: Error): void }> = [];

  /** `env`: the environment of the shell (and of every command), read when it starts. */
  constructor(private readonly env: () => NodeJS.ProcessEnv) {}

  /**
   * Runs `command` in `cwd` with `vars` added to the environment: its first word the executable,
   * or `{ script }`, a shell script run in the shell's own subshell (`vars` exported to it).
   */
  run(cwd: string, command: string[] | { script: string }, vars: Record<string, string> = {}): Promise<ShellResult> {
    const child = this.child ?? this.start();
    const assignments = Object.entries(vars).map(([key, value]) => `${key}=${quote(value)}`);
    const body = Array.isArray(command) ? [...assignments, "exec", ...command.map(quote)].join(" ") : `${assignments.length ? `export ${assignments.join(" ")}; ` : ""}eval ${quote(command.script)}`;
    // A directory that is gone is exit 126, never an exit code a git command gives meaning to (add's 1).
    const line = `(cd ${quote(cwd)} || exit 126; ${body}) </dev/null 2>&1\n`;
    return new Promise<ShellResult>((resolve, reject) => {
      if (this.pending.length === 0) this.hold(child, true);
      this.pending.push({ resolve, reject });
      child.stdin!.write(line);
    });
  }

  private start(): ChildProcess {
    this.token = `flow-end-${randomBytes(8).toString("hex")}`;
    this.buffer = "";
    const child = spawn("sh", ["-c", LOOP], { env: { ...this.env(), FLOW_END: this.token }, stdio: ["pipe", "pipe", "ignore"] });
    this.child = child;
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => this.receive(chunk));
    const gone = (error: Error) => {
      if (this.child !== child) return;
      this.child = undefined;
      for (const waiting of this.pending.splice(0)) waiting.reject(error);
    };
    child.on("error", gone);
    child.on("exit", (code, signal) => gone(new Error(`the git shell exited (${signal ?? code})`)));
    child.stdin!.on("error", gone);
    this.hold(child, false);
    return child;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.indexOf(`\n${this.token} `);
      const eol = end < 0 ? -1 : this.buffer.indexOf("\n", end + 1);
      if (eol < 0) return;
      const output = this.buffer.slice(0, end);
      const code = Number(this.buffer.slice(end + this.token.length + 2, eol));
      this.buffer = this.buffer.slice(eol + 1);
      this.pending.shift()?.resolve({ output, code });
      if (this.pending.length === 0 && this.child) this.hold(this.child, false);
    }
  }

  /** Keeps Node's event loop alive for this shell only while a command runs. */
  private hold(child: ChildProcess, on: boolean): void {
    for (const handle of [child, child.stdout, child.stdin] as Array<{ ref(): void; unref(): void } | null>) {
      if (on) handle?.ref();
      else handle?.unref();
    }
  }
}

/** `value` as one sh word on one line. */
function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`).replace(/\n/g, `'"$nl"'`)}'`;
}
