/**
 * A team Gateway in a process of its own (test code only): `tsx team-gateway-process.ts
 * <storeUrl> <electricUrl>` serves `release` from the workspace's store and prints
 * `listening on <url>`, so a test can SIGKILL it mid-run (node/sync/team-takeover.test.tsx).
 */
import { startTeamGateway } from "./team-fixture.js";

const [storeUrl, electricUrl] = process.argv.slice(2);
if (!storeUrl || !electricUrl) throw new Error("usage: team-gateway-process.ts <storeUrl> <electricUrl>");
const { url } = await startTeamGateway(storeUrl, electricUrl);
console.log(`listening on ${url}`);
