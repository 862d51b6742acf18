/**
 * @module node/server/auth/trusted-proxy-auth
 * `trusted-proxy` mode: the identity is read from headers a reverse proxy sets (and must strip
 * from what clients send). A request without the user header is refused; absent scopes and
 * role headers take `defaultScopes` (`["*"]`) and `defaultRole` (`operator`).
 */
import type { Authenticate, CallerIdentity } from "../../../core/api/index.js";
import { FlowError } from "../../../core/errors.js";
import { parseScopeList } from "./scope-list.js";
import type { TrustedProxyAuthConfig } from "./types.js";

/** Default header names, in the order user, scopes, role. */
export const TRUSTED_PROXY_HEADERS: readonly [string, string, string] = ["x-user-id", "x-user-scopes", "x-user-role"];

/**
 * The Authenticate of `trusted-proxy` mode.
 * @example
 * const authenticate = trustedProxyAuthenticate({ mode: "trusted-proxy", defaultScopes: ["run:read"] });
 */
export function trustedProxyAuthenticate(config: TrustedProxyAuthConfig): Authenticate {
  const [userHeader, scopesHeader, roleHeader] = config.trustedHeaders ?? TRUSTED_PROXY_HEADERS;
  return async (req) => {
    const userId = req.headers.get(userHeader)?.trim();
    if (!userId) throw new FlowError("UNAUTHORIZED", `No ${userHeader} header: this gateway trusts its proxy for the caller's identity; call it through the proxy.`, { reason: "missing", header: userHeader });
    const scopes = req.headers.get(scopesHeader);
    const role = req.headers.get(roleHeader)?.trim();
    const identity: CallerIdentity = {
      userId,
      role: role || (config.defaultRole ?? "operator"),
      scopes: scopes === null ? [...(config.defaultScopes ?? ["*"])] : (parseScopeList(scopes) ?? []),
      triggeredBy: `user:${userId}`,
    };
    return identity;
  };
}
