/**
 * @module node/server/webhooks/signature
 * Webhook signatures as GitHub makes them: `x-hub-signature-256: sha256=<hex HMAC-SHA256 of
 * the raw body under the shared secret>`. Header and prefix are configurable; the comparison
 * runs in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signature header value for `body` (what a sender computes).
 * @example
 * signWebhookBody("s3cret", '{"action":"opened"}'); // "sha256=…"
 */
export function signWebhookBody(secret: string, body: string | Uint8Array, prefix = "sha256="): string {
  return prefix + createHmac("sha256", secret).update(body).digest("hex");
}

/**
 * True when `header` carries the HMAC-SHA256 (hex, after `prefix`) of `body` under `secret`,
 * compared in constant time.
 * @example
 * verifyWebhookSignature("s3cret", body, req.headers.get("x-hub-signature-256"), "sha256=");
 */
export function verifyWebhookSignature(secret: string, body: Uint8Array, header: string | null, prefix: string): boolean {
  if (header === null) return false;
  const value = header.trim();
  if (!value.startsWith(prefix)) return false;
  const presented = Buffer.from(value.slice(prefix.length).toLowerCase(), "utf8");
  const expected = Buffer.from(createHmac("sha256", secret).update(body).digest("hex"), "utf8");
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
