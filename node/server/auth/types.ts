/**
 * @module node/server/auth/types
 * `GatewayAuthConfig` (SPEC.md "Authentication", Gateway `auth` option): a union on `mode`.
 * Each mode becomes an `Authenticate` (core/api/identity.ts). See docs/hosting.md "Authentication".
 */

/**
 * A grant of `token` mode: what one bearer token may do, and for how long.
 * @example
 * const grant: TokenGrant = { role: "viewer", scopes: ["run:read"], userId: "rita", expiresAtMs: Date.parse("2027-01-01") };
 */
export interface TokenGrant {
  role: string;
  /** `*` grants every scope. */
  scopes: string[];
  userId?: string;
  tokenId?: string;
  issuedAtMs?: number;
  /** The token is refused from this instant on. */
  expiresAtMs?: number;
  /** The token is refused from this instant on. */
  revokedAtMs?: number;
}

/**
 * Static bearer tokens, each with its grant.
 * @example
 * const auth: TokenAuthConfig = { mode: "token", tokens: { [process.env.CI_TOKEN!]: { role: "ci", scopes: ["run:write"] } } };
 */
export interface TokenAuthConfig {
  mode: "token";
  /** Bearer token to grant (a plain object or a Map). */
  tokens: Record<string, TokenGrant> | Map<string, TokenGrant>;
  /** Browser origins allowed to call; empty (default) disables the check. */
  allowedOrigins?: string[];
}

/**
 * HS256 JSON Web Tokens signed with a shared secret.
 * @example
 * const auth: JwtAuthConfig = { mode: "jwt", issuer: "https://id.example.com", audience: "flow", secret: process.env.JWT_SECRET! };
 */
export interface JwtAuthConfig {
  mode: "jwt";
  issuer: string;
  audience: string | string[];
  /** The shared HS256 secret. */
  secret: string;
  /** Default `scope`: an array, or a space- or comma-separated string. */
  scopesClaim?: string;
  /** Default `role`. */
  roleClaim?: string;
  /** Default `sub`. */
  userClaim?: string;
  /** Default `operator`, when the token has no role claim. */
  defaultRole?: string;
  /** Default `[]`, when the token has no scopes claim. */
  defaultScopes?: string[];
  /** Default 60; negative values count as 0. Applies to `exp` and `nbf`. */
  clockSkewSeconds?: number;
  allowedOrigins?: string[];
}

/**
 * Identity set by a reverse proxy in request headers (safe only behind a proxy that strips and rewrites them).
 * @example
 * const auth: TrustedProxyAuthConfig = { mode: "trusted-proxy", defaultScopes: ["run:read"], allowedOrigins: ["https://flow.example.com"] };
 */
export interface TrustedProxyAuthConfig {
  mode: "trusted-proxy";
  /** Header names in the order user, scopes, role. Default `x-user-id`, `x-user-scopes`, `x-user-role`. */
  trustedHeaders?: [user: string, scopes: string, role: string];
  /** Default `operator`, when the role header is absent. */
  defaultRole?: string;
  /** Default `["*"]`, when the scopes header is absent. */
  defaultScopes?: string[];
  allowedOrigins?: string[];
}

/**
 * SPEC.md `GatewayAuthConfig`.
 * @example
 * const auth: GatewayAuthConfig = { mode: "token", tokens: { "s3cret": { role: "operator", scopes: ["run:read"] } } };
 */
export type GatewayAuthConfig = TokenAuthConfig | JwtAuthConfig | TrustedProxyAuthConfig;

/**
 * What an auth mode reads besides the request: the time (a fake clock in tests).
 * @example
 * const clock: AuthClock = { now: () => Date.parse("2026-11-24T00:00:00Z") };
 */
export interface AuthClock {
  now(): number;
}
