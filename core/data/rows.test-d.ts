/**
 * Type tests of the row names: one type per name on every entry point (package.json
 * `exports`) that has it — `durable-flow`, `durable-flow/core` and `durable-flow/data` — so
 * a row a console reads through one entry is the row of another (docs/architecture.md "One
 * row, one mapper"). Checked by `tsc --noEmit`; `Same` fails to compile when a pair diverges.
 */
import type * as Root from "durable-flow";
import type * as Core from "durable-flow/core";
import type * as Data from "durable-flow/data";

/** True only when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const nodes: [Same<Root.GatewayRunNode, Data.GatewayRunNode>, Same<Core.GatewayRunNode, Data.GatewayRunNode>] = [true, true];
export const prompts: [Same<Root.GatewayPromptRow, Data.GatewayPromptRow>, Same<Core.GatewayPromptRow, Data.GatewayPromptRow>] = [true, true];
export const runs: [Same<Root.GatewayRunRow, Data.GatewayRunRow>, Same<Root.GatewayRunSummaryRow, Data.GatewayRunSummaryRow>, Same<Core.GatewayRunRow, Data.GatewayRunRow>] = [true, true, true];
export const workflows: Same<Root.GatewayWorkflowRow, Data.GatewayWorkflowRow> = true;
export const runNodes: Same<Data.GatewayRunRow["nodes"][number], Data.GatewayRunNode> = true;

// The keys the collections use are on the rows every entry exports.
export const nodeKey: Root.GatewayRunNode["key"] = "ship#0";
export const promptKey: Core.GatewayPromptRow["key"] = "r1/ship#0";
export const approvalKey: Data.GatewayApprovalRow["key"] = "r1/ship#0";
// @ts-expect-error a row without its key is not a node row
export const keyless: Root.GatewayRunNode = { nodeId: "ship", iteration: 0, state: "finished", label: null, outputTable: null, error: null, updatedAtMs: 0, attempts: [] };
