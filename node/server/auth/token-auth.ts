/**
 * @module node/server/auth/token-auth
 * `token` mode: a map of bearer tokens to grants. Unknown, expired and revoked tokens are
 * refused with UNAUTHORIZED; lookups go by the token's SHA-256, so the secret itself is never
 * compared byte by byte.
 */
import { createHash } from "node:crypto";
import { bearerTokenOf, type Authenticate, type CallerIdentity } from "../../../core/api/index.js";
import { FlowError } from "../../../core/errors.js";
import type { AuthClock, TokenAuthConfig, TokenGrant } from "./types.js";

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The Authenticate of `token` mode.
 * @example
 * const authenticate = tokenAuthenticate({ mode: "token", tokens: { s3cret: { role: "operator", scopes: ["*"], userId: "ana" } } });
 */
export function tokenAuthenticate(config: TokenAuthConfig, clock: AuthClock = Date): Authenticate {
  const grants = new Map<string, TokenGrant>();
  const entries = config.tokens instanceof Map ? [...config.tokens] : Object.entries(config.tokens);
  for (const [token, grant] of entries) grants.set(digest(token), grant);
  return async (req) => {
    const token = bearerTokenOf(req);
    if (token === null) throw new FlowError("UNAUTHORIZED", `This gateway requires a token: send "authorization: Bearer <token>" (or the token of the WebSocket connect frame).`, { reason: "missing" });
    const grant = grants.get(digest(token));
    if (!grant) throw new FlowError("UNAUTHORIZED", "The token sent is not one of this gateway's tokens.", { reason: "unknown" });
    const now = clock.now();
    const id = grant.tokenId ?? grant.userId ?? "unnamed";
    if (grant.revokedAtMs !== undefined && grant.revokedAtMs <= now) {
      throw new FlowError("UNAUTHORIZED", `Token ${id} was revoked at ${new Date(grant.revokedAtMs).toISOString()}; ask for a new one.`, { reason: "revoked", tokenId: grant.tokenId });
    }
    if (grant.expiresAtMs !== undefined && grant.expiresAtMs <= now) {
      throw new FlowError("UNAUTHORIZED", `Token ${id} expired at ${new Date(grant.expiresAtMs).toISOString()}; refresh it.`, { reason: "expired", tokenId: grant.tokenId, refresh: true });
    }
    return identityOf(grant);
  };
}

function identityOf(grant: TokenGrant): CallerIdentity {
  const identity: CallerIdentity = {
    role: grant.role,
    scopes: [...grant.scopes],
    triggeredBy: grant.userId ? `user:${grant.userId}` : `token:${grant.tokenId ?? "unnamed"}`,
  };
  if (grant.userId) identity.userId = grant.userId;
  if (grant.tokenId) identity.tokenId = grant.tokenId;
  return identity;
}
