/**
 * @module node/server/auth/jwt-auth
 * `jwt` mode: HS256 tokens verified with `jose` against the shared secret. Only HS256 is
 * accepted (`alg: none` and every other algorithm are refused); `iss`, `aud` (string or
 * array), `exp` and `nbf` are checked with `clockSkewSeconds` of tolerance (default 60,
 * negative counts as 0). Scopes come from `scopesClaim` (array, or space/comma string).
 */
import type { errors as JoseErrors, JWTPayload } from "jose";
import { bearerTokenOf, type Authenticate, type CallerIdentity } from "../../../core/api/index.js";
import { FlowError } from "../../../core/errors.js";
import { parseScopeList } from "./scope-list.js";
import type { AuthClock, JwtAuthConfig } from "./types.js";

/**
 * The Authenticate of `jwt` mode.
 * @example
 * const authenticate = jwtAuthenticate({ mode: "jwt", issuer: "https://id.example.com", audience: "flow", secret: process.env.JWT_SECRET! });
 */
export function jwtAuthenticate(config: JwtAuthConfig, clock: AuthClock = Date): Authenticate {
  const key = new TextEncoder().encode(config.secret);
  const skew = Math.max(0, config.clockSkewSeconds ?? 60);
  const claims = { scopes: config.scopesClaim ?? "scope", role: config.roleClaim ?? "role", user: config.userClaim ?? "sub" };
  return async (req) => {
    const token = bearerTokenOf(req);
    if (token === null) throw new FlowError("UNAUTHORIZED", `This gateway requires a JWT: send "authorization: Bearer <jwt>" (or the token of the WebSocket connect frame).`, { reason: "missing" });
    // jose loads at the first token, not with the package (docs/package.md "What loads when").
    const { errors, jwtVerify } = await import("jose");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ["HS256"],
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: skew,
        currentDate: new Date(clock.now()),
      }));
    } catch (cause) {
      throw refusal(cause, errors);
    }
    return identityOf(payload, config, claims);
  };
}

function identityOf(payload: JWTPayload, config: JwtAuthConfig, claims: { scopes: string; role: string; user: string }): CallerIdentity {
  const user = payload[claims.user];
  const role = payload[claims.role];
  const identity: CallerIdentity = {
    role: typeof role === "string" && role ? role : (config.defaultRole ?? "operator"),
    scopes: parseScopeList(payload[claims.scopes]) ?? [...(config.defaultScopes ?? [])],
    triggeredBy: typeof user === "string" && user ? `user:${user}` : "jwt",
  };
  if (typeof user === "string" && user) identity.userId = user;
  if (typeof payload.jti === "string") identity.tokenId = payload.jti;
  return identity;
}

/** The UNAUTHORIZED error for a token jose refused, with a `reason` a client can act on. */
function refusal(cause: unknown, errors: typeof JoseErrors): FlowError {
  if (cause instanceof errors.JWTExpired) {
    return new FlowError("UNAUTHORIZED", "The JWT has expired; refresh it.", { reason: "expired", refresh: true }, { cause });
  }
  if (cause instanceof errors.JWTClaimValidationFailed) {
    return new FlowError("UNAUTHORIZED", `The JWT's "${cause.claim}" claim is not accepted here (${cause.reason}); check issuer, audience and not-before.`, { reason: "claim", claim: cause.claim }, { cause });
  }
  if (cause instanceof errors.JOSEAlgNotAllowed || cause instanceof errors.JOSENotSupported) {
    return new FlowError("UNAUTHORIZED", "The JWT is not signed with HS256, the only algorithm this gateway accepts.", { reason: "algorithm" }, { cause });
  }
  if (cause instanceof errors.JWSSignatureVerificationFailed) {
    return new FlowError("UNAUTHORIZED", "The JWT's signature does not match this gateway's secret.", { reason: "signature" }, { cause });
  }
  return new FlowError("UNAUTHORIZED", `The bearer token is not a valid JWT (${(cause as Error).message}).`, { reason: "malformed" }, { cause });
}
