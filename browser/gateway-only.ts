/**
 * @module browser/gateway-only
 * What runs only in a Gateway, as the browser sees it: the shell and file tools (`bash`, `read`,
 * `write`, `edit`, `grep`, the bundle `tools`) and the CLI agents, which need a machine's shell
 * and files. In the app's browser bundle they keep their names, so a workflow that uses them
 * still loads and renders; a tool call or an agent's generation fails with NOT_AVAILABLE saying
 * to run the workflow in a Gateway workspace. See docs/app-browser.md "What needs a Gateway".
 */
import { z } from "zod";
import type { AgentGenerateOptions, AgentLike } from "../core/agents/index.js";
import { FlowError } from "../core/errors.js";
import { defineTool } from "../core/tools/index.js";

/**
 * The error of a Gateway-only tool or agent used in the browser.
 * @example
 * throw needsGateway("The bash tool", { tool: "bash" });
 */
export function needsGateway(what: string, details: Record<string, unknown>): FlowError {
  return new FlowError(
    "NOT_AVAILABLE",
    `${what} needs a Gateway: it runs commands or reads files on a machine, which a browser cannot. Run this workflow in a Gateway workspace (npm start, then choose it in the workspace switcher).`,
    details,
  );
}

const gatewayTool = (name: string) =>
  defineTool({
    name,
    description: `${name} (runs only in a Gateway workspace)`,
    schema: z.object({}).passthrough(),
    execute: () => {
      throw needsGateway(`The ${name} tool`, { tool: name });
    },
  });

/** `bash`: runs only in a Gateway (NOT_AVAILABLE in the browser). @example tools={{ bash }} */
export const bash = gatewayTool("bash");
/** `read`: runs only in a Gateway (NOT_AVAILABLE in the browser). @example tools={{ read }} */
export const read = gatewayTool("read");
/** `write`: runs only in a Gateway (NOT_AVAILABLE in the browser). @example tools={{ write }} */
export const write = gatewayTool("write");
/** `edit`: runs only in a Gateway (NOT_AVAILABLE in the browser). @example tools={{ edit }} */
export const edit = gatewayTool("edit");
/** `grep`: runs only in a Gateway (NOT_AVAILABLE in the browser). @example tools={{ grep }} */
export const grep = gatewayTool("grep");
/** The five built-in tools; each runs only in a Gateway. @example tools={tools} */
export const tools = { read, write, edit, grep, bash } as const;

/**
 * A CLI agent in the browser: constructed like the Node one (options are ignored), its
 * generation fails with NOT_AVAILABLE naming the agent.
 * @example
 * await new BaseCliAgent({}).generate(); // rejects: NOT_AVAILABLE
 */
export class BaseCliAgent implements AgentLike {
  readonly id: string;
  constructor(opts: { id?: string } = {}) {
    this.id = opts.id ?? new.target.name;
  }
  async generate(_args?: AgentGenerateOptions): Promise<never> {
    throw needsGateway(`The CLI agent ${this.constructor.name} (${this.id})`, { agent: this.constructor.name, agentId: this.id });
  }
}

/** @see BaseCliAgent @example new SessionCliAgent({}) */
export class SessionCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new ExecCliAgent({}) */
export class ExecCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new ConversationCliAgent({}) */
export class ConversationCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new LegacyConversationCliAgent({}) */
export class LegacyConversationCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new MinimalHarnessCliAgent({}) */
export class MinimalHarnessCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new ExtendedHarnessCliAgent({}) */
export class ExtendedHarnessCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new IsolatedShareCliAgent({}) */
export class IsolatedShareCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new WorkflowCliAgent({}) */
export class WorkflowCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new ThreadCliAgent({}) */
export class ThreadCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new BudgetCliAgent({}) */
export class BudgetCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new StepEventCliAgent({}) */
export class StepEventCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new GatewayRelayCliAgent({}) */
export class GatewayRelayCliAgent extends BaseCliAgent {}
/** @see BaseCliAgent @example new LocalPresetCliAgent({}) */
export class LocalPresetCliAgent extends BaseCliAgent {}
