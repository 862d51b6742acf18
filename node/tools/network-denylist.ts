/**
 * @module node/tools/network-denylist
 * The `bash` network denylist applied when `allowNetwork` is false (SPEC.md "Errors"):
 *
 * - the executable's basename is `curl`, `wget`, `npm`, `bun` or `pip` -> TOOL_NETWORK_DISABLED
 * - an argument is an `http://` or `https://` URL, whole or as a flag value (`--url=https://..`)
 *   -> TOOL_NETWORK_DISABLED
 * - `git` with the subcommand `push`, `pull`, `fetch`, `clone` or `remote` -> TOOL_GIT_REMOTE_DISABLED
 * - a shell (`sh`, `bash`, ...) given `-c <payload>`: the payload is split into simple commands
 *   (`;`, `&&`, `||`, `|`, `&`, newlines, subshells, `$(..)` and backticks) and each command
 *   position is checked by the same rules.
 *
 * Only the invoked executable and genuine URL arguments match: `git status`, `echo curl` and
 * `git commit -m "fetch data"` run. Command wrappers (`env`, `sudo`, `timeout`, `xargs`, ...)
 * are looked through to the command they run, their value-taking options skipped with their
 * values and `env -S` split. Best-effort, not a security boundary
 * (docs/tools.md "Network").
 */
import { parse, type ParseEntry } from "shell-quote";
import { FlowError } from "../../core/errors.js";

const BLOCKED_EXECUTABLES = new Set(["curl", "wget", "npm", "bun", "pip"]);
const GIT_REMOTE_SUBCOMMANDS = new Set(["push", "pull", "fetch", "clone", "remote"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);
/** git global options that take their value as the next argument. */
const GIT_OPTIONS_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix"]);
/**
 * Wrappers: the options that take their value as the next argument (so `nice -n 5 curl` runs
 * curl, not `5`), and how many operands stand before the command (`timeout 5 curl`).
 */
const WRAPPERS: Record<string, { valueOptions: readonly string[]; operands: number }> = {
  env: { valueOptions: ["-u", "--unset", "-C", "--chdir"], operands: 0 },
  sudo: { valueOptions: ["-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout", "-R", "--chroot"], operands: 0 },
  doas: { valueOptions: ["-u", "-C"], operands: 0 },
  nohup: { valueOptions: [], operands: 0 },
  nice: { valueOptions: ["-n", "--adjustment"], operands: 0 },
  ionice: { valueOptions: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"], operands: 0 },
  time: { valueOptions: ["-f", "--format", "-o", "--output"], operands: 0 },
  exec: { valueOptions: ["-a"], operands: 0 },
  command: { valueOptions: [], operands: 0 },
  xargs: {
    valueOptions: ["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"],
    operands: 0,
  },
  stdbuf: { valueOptions: ["-i", "--input", "-o", "--output", "-e", "--error"], operands: 0 },
  setsid: { valueOptions: [], operands: 0 },
  busybox: { valueOptions: [], operands: 0 },
  timeout: { valueOptions: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  chroot: { valueOptions: ["--userspec", "--groups"], operands: 1 },
  unshare: { valueOptions: ["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd"], operands: 0 },
  flock: { valueOptions: ["-w", "--timeout", "-E", "--conflict-exit-code"], operands: 1 },
};
/** Shell words that may stand before a command without being one. */
const SHELL_KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case", "esac", "!", "{", "}", "in", "select", "function"]);
const SEPARATORS = new Set([";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "<(", ">("]);
const MAX_DEPTH = 8;

/** Throws when running `cmd args` would use the network by the rules above. */
export function assertNetworkAllowed(cmd: string, args: readonly string[]): void {
  checkCommand([cmd, ...args], 0);
}

function checkCommand(words: readonly string[], depth: number): void {
  let i = 0;
  while (i < words.length && (SHELL_KEYWORDS.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
  if (i >= words.length) return;
  const exe = executableName(words[i]!);
  const args = words.slice(i + 1);
  const wrapper = WRAPPERS[exe];
  if (wrapper !== undefined) {
    for (const a of args) assertNotUrl(exe, a);
    return checkCommand(wrappedCommand(exe, args, wrapper), depth);
  }
  if (BLOCKED_EXECUTABLES.has(exe)) {
    throw new FlowError("TOOL_NETWORK_DISABLED", `Tool "bash": \`${exe}\` reaches the network, which is disabled for this run. Run it with allowNetwork: true, or do without it.`, { executable: exe });
  }
  if (exe === "git") {
    const sub = gitSubcommand(args);
    if (sub !== undefined && GIT_REMOTE_SUBCOMMANDS.has(sub)) {
      throw new FlowError("TOOL_GIT_REMOTE_DISABLED", `Tool "bash": \`git ${sub}\` talks to a remote, which is disabled for this run (allowNetwork is false). Local git commands are allowed.`, { subcommand: sub });
    }
  }
  for (const a of args) assertNotUrl(exe, a);
  if (SHELLS.has(exe) && depth < MAX_DEPTH) {
    const payload = shellPayload(args);
    if (payload !== undefined) checkScript(payload, depth + 1);
  }
}

/** Checks every simple command of a shell script. */
function checkScript(script: string, depth: number): void {
  let words: string[] = [];
  let skipNext = false;
  const flush = () => {
    if (words.length > 0) checkCommand(words, depth);
    words = [];
  };
  for (const entry of parse(withSeparators(script), (name) => `$${name}`) as ParseEntry[]) {
    if (typeof entry === "string") {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      for (const inner of substitutions(entry)) checkScript(inner, depth + 1);
      words.push(entry);
    } else if ("op" in entry) {
      if (SEPARATORS.has(entry.op)) flush();
      else skipNext = entry.op !== "glob"; // a redirection: its target is a file, not a word
    }
  }
  flush();
}

/** Turns unquoted newlines into `;` and backticks into `$(..)` (shell-quote knows neither). */
function withSeparators(script: string): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  let inBacktick = false;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!;
    if (ch === "\\" && quote !== "'") {
      out += ch + (script[i + 1] ?? "");
      i++;
    } else if (quote) {
      if (ch === quote) quote = undefined;
      out += ch === "`" && quote === '"' ? (inBacktick = !inBacktick) ? "$(" : ")" : ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "\n") out += ";";
    else if (ch === "`") out += (inBacktick = !inBacktick) ? "$(" : ")";
    else out += ch;
  }
  return out;
}

/** The `$(..)` payloads inside a word (command substitutions survive double quotes). */
function substitutions(word: string): string[] {
  const found: string[] = [];
  for (let start = word.indexOf("$("); start !== -1; start = word.indexOf("$(", start + 2)) {
    let depth = 0;
    for (let i = start + 1; i < word.length; i++) {
      if (word[i] === "(") depth++;
      else if (word[i] === ")" && --depth === 0) {
        found.push(word.slice(start + 2, i));
        break;
      }
    }
  }
  return found;
}

/** The script of `sh [options] -c script [name [args]]`, or undefined without `-c`. */
function shellPayload(args: readonly string[]): string | undefined {
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return sawC ? args[i + 1] : undefined;
    if (a === "-o" || a === "+o" || a === "-O" || a === "+O") {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(a)) {
      if (a.startsWith("-") && a.includes("c")) sawC = true;
      continue;
    }
    if (a.startsWith("--")) continue;
    return sawC ? a : undefined;
  }
  return undefined;
}

function gitSubcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GIT_OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/** The command a wrapper runs: its options (and their values) and operands skipped; `env -S` split. */
function wrappedCommand(exe: string, args: readonly string[], wrapper: (typeof WRAPPERS)[string]): string[] {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      i++;
      break;
    }
    if (exe === "env") {
      // `env -S 'curl -s x'` splits its value into the command and its first arguments.
      const split = a === "-S" || a === "--split-string" ? args[i + 1] : a.startsWith("--split-string=") ? a.slice(15) : /^-[a-zA-Z]*S./.test(a) ? a.slice(a.indexOf("S") + 1) : undefined;
      if (split !== undefined) return [...words(split), ...args.slice(a === "-S" || a === "--split-string" ? i + 2 : i + 1)];
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) continue;
    }
    if (!a.startsWith("-") || a === "-") break;
    if (wrapper.valueOptions.includes(a)) i++;
  }
  return args.slice(i + wrapper.operands);
}

/** The words of a command line (quotes removed; operators dropped). */
function words(line: string): string[] {
  return (parse(line, (name) => `$${name}`) as ParseEntry[]).filter((e): e is string => typeof e === "string");
}

function executableName(word: string): string {
  const base = word.slice(Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\")) + 1);
  return base.toLowerCase().replace(/\.exe$/, "");
}

function assertNotUrl(exe: string, arg: string): void {
  const eq = arg.startsWith("-") ? arg.indexOf("=") : -1;
  const value = eq === -1 ? arg : arg.slice(eq + 1);
  if (/^https?:\/\//i.test(value)) {
    throw new FlowError("TOOL_NETWORK_DISABLED", `Tool "bash": \`${exe}\` was given the URL ${value}, and network access is disabled for this run. Run it with allowNetwork: true.`, { executable: exe, url: value });
  }
}
