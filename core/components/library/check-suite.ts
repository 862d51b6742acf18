/**
 * @module core/components/library/check-suite
 * CheckSuite: independent checks at once, then one verdict by strategy. See
 * docs/components.md, "CheckSuite".
 */
import { z } from "zod";
import { FlowError } from "../../errors.js";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget, TaskRuntime } from "../types.js";
import { type AgentOrChain, failStep, isAgentOrChain, libraryCtx, parallelGroup, required, stepTask } from "./common.js";

/**
 * The row of each check and of the verdict (`verdictOutput` must accept these fields): a check
 * writes `passed` and `summary`; the verdict adds the names of the checks that `failed`.
 * @example
 * const schemas = { verdict: checkVerdictSchema };
 */
export const checkVerdictSchema = z.object({ passed: z.boolean(), summary: z.string().default(""), failed: z.array(z.string()).default([]) });

/** One check: an agent asked to run `command` (or judge by `label`), or `command` as a function returning `{ passed, summary? }`. */
export interface CheckSpec {
  agent?: AgentOrChain;
  command?: string | ((task: TaskRuntime) => { passed: boolean; summary?: string } | Promise<{ passed: boolean; summary?: string }>);
  label?: string;
}

export interface CheckSuiteProps {
  /** Default `checks`. */
  id?: string;
  /** Checks by name, or a list (named by label, else `check-<n>`); each runs as `<id>:<name>`. */
  checks: CheckSpec[] | Record<string, CheckSpec>;
  /** Table of every check row and of the verdict (`<id>:verdict`). */
  verdictOutput: OutputTarget;
  /** `all-pass` (default), `majority` (more than half), `any-pass`. */
  strategy?: "all-pass" | "majority" | "any-pass";
  maxConcurrency?: number;
  /** When true, a failed verdict is only a row; by default it then fails the run with CHECK_SUITE_FAILED. */
  continueOnFail?: boolean;
  skipIf?: boolean;
}

/**
 * Whether the suite passes under a strategy, given how many checks passed of how many.
 * @example
 * suitePasses("majority", 2, 3); // true
 */
export function suitePasses(strategy: CheckSuiteProps["strategy"], passed: number, total: number): boolean {
  if (strategy === "any-pass") return passed > 0;
  if (strategy === "majority") return passed * 2 > total;
  return passed === total;
}

/**
 * Runs every check at once (a check that crashes counts as failed), then writes the verdict.
 * @example
 * <CheckSuite id="pre-merge" checks={{ tests: { command: () => runTests() }, review: { agent: reviewer, label: "code review" } }} verdictOutput={outputs.verdict} strategy="all-pass" />
 */
export function CheckSuite(props: CheckSuiteProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "checks";
  const ctx = libraryCtx(`CheckSuite "${id}"`);
  const list = required(props.checks, `CheckSuite "${id}" checks`);
  const checks: Array<[string, CheckSpec]> = Array.isArray(list) ? list.map((c, i) => [slug(c.label) ?? `check-${i + 1}`, c]) : Object.entries(list);
  const rowOf = (name: string) => ctx.latest(props.verdictOutput as never, `${id}:${name}`) as Record<string, unknown> | undefined;
  const verdict = ctx.outputMaybe(props.verdictOutput as never, { nodeId: `${id}:verdict` }) as Record<string, unknown> | undefined;
  return createElement(TAGS.sequence, {
    id,
    children: [
      parallelGroup(`${id}:run`, props.maxConcurrency, checks.map(([name, c]) => checkTask(id, name, c, props.verdictOutput))),
      createElement(TAGS.task, {
        id: `${id}:verdict`,
        output: props.verdictOutput,
        children: () => {
          const failed = checks.filter(([name]) => rowOf(name)?.passed !== true).map(([name]) => name);
          const passed = suitePasses(props.strategy, checks.length - failed.length, checks.length);
          return { passed, summary: `${checks.length - failed.length} of ${checks.length} checks passed (${props.strategy ?? "all-pass"})`, failed };
        },
      }, "verdict"),
      verdict && verdict.passed !== true && !props.continueOnFail
        ? failStep(`${id}:failed`, "CHECK_SUITE_FAILED", `CheckSuite "${id}" failed: ${String(verdict.summary)}; failed checks: ${(verdict.failed as string[] | undefined)?.join(", ") || "none"}.`, { suiteId: id, failed: verdict.failed })
        : null,
    ],
  });
}

function checkTask(id: string, name: string, c: CheckSpec, output: OutputTarget): FlowNode {
  const what = c.label ?? name;
  if (typeof c.command === "function") {
    const run = c.command;
    return stepTask(`${id}:${name}`, output, async (task: TaskRuntime) => ({ failed: [], summary: "", ...(await run(task)) }), () => "", { continueOnFail: true, label: what });
  }
  if (!isAgentOrChain(c.agent)) {
    throw new FlowError("RENDER_FAILED", `CheckSuite "${id}" check "${name}" needs an agent (to run "${String(c.command ?? what)}"), or a command function that runs it and returns { passed }.`);
  }
  const ask = c.command ? `Run \`${c.command}\` and report whether it succeeded.` : `Check: ${what}.`;
  return stepTask(`${id}:${name}`, output, c.agent, () => `${ask} Answer with JSON including \`passed\` (true or false) and \`summary\`.`, { continueOnFail: true, label: what });
}

function slug(label: string | undefined): string | undefined {
  const s = label?.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return s || undefined;
}
