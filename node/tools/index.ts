/**
 * @module node/tools
 * The built-in tools (SPEC.md "Tools"): `read`, `write`, `edit`, `grep`, `bash`, and the bundle
 * `tools` of those five, sandboxed to the run's `rootDir` (docs/tools.md).
 */
import { bash } from "./bash.js";
import { edit } from "./edit.js";
import { grep } from "./grep.js";
import { read } from "./read.js";
import { write } from "./write.js";

export { bash, BASH_LIMITS } from "./bash.js";
export { edit } from "./edit.js";
export { grep } from "./grep.js";
export { read } from "./read.js";
export { write } from "./write.js";

/**
 * The five built-in tools, keyed by name, ready to give to an agent.
 * @example
 * const listing = await tools.bash.execute({ cmd: "ls" }, { rootDir: "/work/repo" });
 */
export const tools = { read, write, edit, grep, bash } as const;

// For Flow's other areas (not part of the documented entry).
export {
  createOpenApiTool,
  createOpenApiTools,
  createOpenApiToolsSync,
  createOpenApiToolSync,
  listOperations,
  loadOpenApiSpec,
} from "./openapi.js";
