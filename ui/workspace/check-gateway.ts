/**
 * @module ui/workspace/check-gateway
 * "Add a Gateway…": before a Gateway is saved as a workspace, its address is normalised
 * (`build-box:7331` → `http://build-box:7331`) and its `/health` is asked, then the runs list
 * with the token, so a typo, a closed port, a page that is not a Flow Gateway, a Gateway that
 * does not allow this page's origin (CORS) or a wrong token is said at once, not after saving.
 */
import type { Workspace } from "./workspaces.js";
import { API_ROUTES, routeUrl } from "../../core/api/wire/index.js";

/** What the check found. */
export type GatewayCheck = { ok: true; workspace: Workspace } | { ok: false; field: "url" | "token"; message: string };

/**
 * The Gateway URL a person typed, as an origin (plus a mount path if given), or null when it
 * is not a URL.
 * @example
 * normalizeGatewayUrl("build-box:7331/"); // "http://build-box:7331"
 */
export function normalizeGatewayUrl(typed: string): string | null {
  const text = typed.trim();
  if (!text) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return null;
  }
}

/**
 * Checks a Gateway (health, then a read with the token) and answers the workspace to save.
 * @example
 * const check = await checkGateway({ url: "http://127.0.0.1:7331", token: "", name: "Build box" });
 * if (check.ok) saveWorkspace(check.workspace);
 */
export async function checkGateway(given: { url: string; token?: string; name?: string }, fetchFn: typeof fetch = fetch): Promise<GatewayCheck> {
  const url = normalizeGatewayUrl(given.url);
  if (!url) return { ok: false, field: "url", message: "Enter the Gateway's address, such as http://127.0.0.1:7331." };
  const token = given.token?.trim() ?? "";
  let health: Response;
  try {
    health = await fetchFn(`${url}/health`, { signal: AbortSignal.timeout(8000) });
  } catch {
    return { ok: false, field: "url", message: `No answer from ${url}. Check that the Gateway runs (flow serve) and the address is right; a Gateway on another origin answers only origins listed in its auth.allowedOrigins.` };
  }
  const body = (await health.json().catch(() => null)) as { ok?: boolean; status?: string } | null;
  if (!health.ok || !body || (body.ok !== true && body.status !== "ok")) {
    return { ok: false, field: "url", message: `${url} answered, but not as a Flow Gateway (GET /health gave HTTP ${health.status}). Check the address.` };
  }
  const read = await fetchFn(`${url}${routeUrl(API_ROUTES.listRuns, {}, { limit: 1 })}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(8000) }).catch(() => null);
  if (read && (read.status === 401 || read.status === 403)) {
    return { ok: false, field: "token", message: token ? `The Gateway refused this token (HTTP ${read.status}). Check it, or ask its owner for one that may read runs.` : "This Gateway needs a token: paste one its owner gave you." };
  }
  const host = new URL(url).host;
  return { ok: true, workspace: { id: `gateway:${url}`, kind: "gateway", name: given.name?.trim() || host, url, ...(token ? { token } : {}) } };
}
