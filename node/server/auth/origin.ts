/**
 * @module node/server/auth/origin
 * `allowedOrigins` (SPEC.md "Authentication"): when non-empty, an HTTP request or WebSocket
 * upgrade whose browser `Origin` is not listed is refused; a request without `Origin` (curl,
 * servers, webhooks) is always allowed. The same rule in every auth mode.
 */
import { FlowError } from "../../../core/errors.js";

/**
 * Throws ORIGIN_NOT_ALLOWED (403) when `origin` is present and not in a non-empty list.
 * Origins compare without a trailing slash and case-insensitively (browsers send lowercase).
 * @example
 * assertOriginAllowed(["https://console.example.com"], req.headers.get("origin"));
 */
export function assertOriginAllowed(allowedOrigins: readonly string[] | undefined, origin: string | null | undefined): void {
  if (!allowedOrigins?.length || !origin) return;
  const norm = (o: string) => o.trim().replace(/\/+$/, "").toLowerCase();
  const wanted = norm(origin);
  if (allowedOrigins.some((o) => norm(o) === wanted)) return;
  throw new FlowError("ORIGIN_NOT_ALLOWED", `Origin ${origin} may not call this gateway; add it to auth.allowedOrigins (allowed: ${allowedOrigins.join(", ")}).`, { origin });
}
