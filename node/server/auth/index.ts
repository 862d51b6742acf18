/**
 * @module node/server/auth
 * The Gateway's auth: one `Authenticate` per `GatewayAuthConfig` mode, and the origin check
 * shared by HTTP requests and WebSocket upgrades. See docs/hosting.md "Authentication".
 */
import type { Authenticate } from "../../../core/api/index.js";
import { jwtAuthenticate } from "./jwt-auth.js";
import { tokenAuthenticate } from "./token-auth.js";
import { trustedProxyAuthenticate } from "./trusted-proxy-auth.js";
import type { AuthClock, GatewayAuthConfig } from "./types.js";

export { assertOriginAllowed } from "./origin.js";
export type { AuthClock, GatewayAuthConfig, JwtAuthConfig, TokenAuthConfig, TokenGrant, TrustedProxyAuthConfig } from "./types.js";

/**
 * The Authenticate of an auth config; without one, every caller is anonymous (null).
 * @example
 * const authenticate = gatewayAuthenticate({ mode: "trusted-proxy" });
 */
export function gatewayAuthenticate(config: GatewayAuthConfig | undefined, clock: AuthClock = Date): Authenticate {
  switch (config?.mode) {
    case undefined:
      return async () => null;
    case "token":
      return tokenAuthenticate(config, clock);
    case "jwt":
      return jwtAuthenticate(config, clock);
    case "trusted-proxy":
      return trustedProxyAuthenticate(config);
  }
}
