/**
 * Writes the route table of docs/hosting.md "Domain API" from the contract
 * (core/api/contract.ts `routeTable()`), between its `routes:start` and `routes:end` markers.
 * core/api/contract.test.ts fails while the docs differ.
 *
 * @example
 * ```sh
 * npx tsx scripts/route-table.ts
 * ```
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { routeTable } from "../core/api/contract.js";

const docs = fileURLToPath(new URL("../docs/hosting.md", import.meta.url));
const text = readFileSync(docs, "utf8");
const next = text.replace(/(<!-- routes:start[^>]*-->\n)[\s\S]*?(\n<!-- routes:end -->)/, `$1\n${routeTable()}\n$2`);
if (next === text && !text.includes(routeTable())) throw new Error("docs/hosting.md has no <!-- routes:start --> ... <!-- routes:end --> markers.");
writeFileSync(docs, next);
