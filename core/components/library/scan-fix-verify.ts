/**
 * @module core/components/library/scan-fix-verify
 * ScanFixVerify (SPEC.md names it and its first props; the rest is ours): scan for findings,
 * fix them, verify the fix, and scan again, in a Loop, until a scan finds nothing or a
 * verification passes. See docs/components.md, "ScanFixVerify".
 */
import { z } from "zod";
import { createElement, type FlowNode } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget } from "../types.js";
import { type AgentOrChain, type AgentOrFunction, libraryCtx, passRows, required, rowJson, stepTask } from "./common.js";

/**
 * Fields ScanFixVerify reads from a scan row: `findings` (empty = clean).
 * @example
 * const schemas = { scan: scanFindingsSchema, verify: verifyResultSchema };
 */
export const scanFindingsSchema = z.object({ findings: z.array(z.unknown()) });
/**
 * Fields ScanFixVerify reads from a verify row: `passed`.
 * @example
 * const schemas = { verify: verifyResultSchema.extend({ log: z.string() }) };
 */
export const verifyResultSchema = z.object({ passed: z.boolean() });

export interface ScanFixVerifyProps {
  /** Default `scan-fix-verify`. */
  id?: string;
  /** Finds problems: a row of `scanOutput` with `findings` (an array). */
  scanner: AgentOrFunction;
  /** Fixes the findings of the last scan (a row of `fixOutput`). */
  fixer: AgentOrChain;
  /** Checks the fix (a row of `verifyOutput` with `passed`); default: the scanner scans again, and no findings means passed. */
  verifier?: AgentOrFunction;
  scanOutput: OutputTarget;
  fixOutput: OutputTarget;
  /** Needed with a `verifier`. */
  verifyOutput?: OutputTarget;
  /** What to scan (for agents). */
  target?: string;
  /** Scan-fix-verify rounds at most (default 3). */
  maxRounds?: number;
  /** When rounds run out with findings left: `fail` (default, LOOP_MAX_ITERATIONS) or `return-last`. */
  onMaxReached?: "fail" | "return-last";
  skipIf?: boolean;
}

/**
 * Scan → (findings?) fix → verify, repeated until clean.
 * @example
 * <ScanFixVerify id="vulns" scanner={async () => ({ findings: await audit() })} fixer={coder} verifier={async () => ({ passed: (await audit()).length === 0 })} scanOutput={outputs.scan} fixOutput={outputs.fix} verifyOutput={outputs.verify} target="package.json" />
 */
export function ScanFixVerify(props: ScanFixVerifyProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "scan-fix-verify";
  const ctx = libraryCtx(`ScanFixVerify "${id}"`);
  const what = props.target ?? "the workspace";
  const scans = passRows(ctx, id, required(props.scanOutput, `ScanFixVerify "${id}" scanOutput`), `${id}:scan`);
  const verifyOutput = props.verifier ? required(props.verifyOutput, `ScanFixVerify "${id}" verifyOutput (with a verifier)`) : undefined;
  const verifies = verifyOutput ? passRows(ctx, id, verifyOutput, `${id}:verify`) : [];
  const lastScan = scans.at(-1);
  const clean = lastScan !== undefined && Array.isArray(lastScan.findings) && lastScan.findings.length === 0;
  const verified = verifies.at(-1)?.passed === true && (verifies.at(-1)?.iteration ?? -1) >= (lastScan?.iteration ?? 0);
  // In the current round: fix and verify only once this round's scan found something.
  const round = ctx.iterations[id] ?? 0;
  const scannedNow = lastScan !== undefined && lastScan.iteration === round;
  const findingsNow = scannedNow && !clean;
  const findings = () => rowJson(ctx.latest(props.scanOutput as never, `${id}:scan`) as Record<string, unknown> | undefined);
  return createElement(TAGS.loop, {
    id,
    until: clean || verified,
    maxIterations: props.maxRounds ?? 3,
    onMaxReached: props.onMaxReached ?? "fail",
    children: [
      stepTask(`${id}:scan`, props.scanOutput, required(props.scanner, `ScanFixVerify "${id}" scanner`), () => `Scan ${what} for problems. Answer with JSON including \`findings\` (an array; empty when clean).`),
      findingsNow ? stepTask(`${id}:fix`, props.fixOutput, required(props.fixer, `ScanFixVerify "${id}" fixer`), () => `Fix these findings in ${what}: ${findings()}`) : null,
      findingsNow && props.verifier ? stepTask(`${id}:verify`, verifyOutput!, props.verifier, () => `Verify that these findings in ${what} are fixed: ${findings()}. Answer with JSON including \`passed\`.`) : null,
    ],
  });
}
