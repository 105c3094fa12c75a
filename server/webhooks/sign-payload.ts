import { createHmac } from 'node:crypto';

/**
 * v1 is the hex HMAC-SHA256 of "<t>.<raw body>", keyed with the UTF-8 bytes of
 * the secret exactly as shown at creation (prefix included): Stripe's scheme.
 */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.${body}`, 'utf8')
    .digest('hex');
}

/**
 * The key Standard Webhooks libraries (standardwebhooks, Svix) derive from a secret: the base64
 * decoding of the secret after any `whsec_` prefix. A Form B secret (64 hex digits) is read as
 * base64 too, exactly as those libraries read it (48 bytes, not the 32 its hex digits spell), so
 * their verifiers accept it unchanged. For the secrets the forms issue (standard base64 with padding,
 * or lowercase hex) Node's decoder and theirs (@stablelib/base64) give the same bytes; the test
 * compares our signatures with the libraries' own `sign`. (Theirs throws on base64url or stray
 * characters, where Node's skips them, so such a secret could not be verified by them at all.)
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** Standard Webhooks: base64 HMAC-SHA256 of "<msg id>.<t>.<raw body>". */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
}

/**
 * The headers of one attempt (docs/rules.md#signatures-and-headers). `t` is the attempt's own time, so each
 * attempt is signed anew. `secrets` are the endpoint's active secrets, newest first: during a
 * rotation's overlap both sign, so a receiver verifies with either (Stripe's libraries accept any
 * matching `v1=`; Standard Webhooks' any matching `v1,` entry). Beside ours, the Standard Webhooks
 * headers: `webhook-id` is the delivery id, which the Standard Webhooks signature covers (the
 * Stripe-style X-Service-Signature does not), so it is the key to deduplicate on.
 * `X-Service-Event-Id` is the event's own id: the same on every delivery of the event, to every
 * endpoint, and on a resent or recovered delivery, whose delivery id is new.
 */
export function deliveryHeaders(input: {
  secrets: readonly string[];
  event: string;
  eventId: string;
  deliveryId: string;
  body: string;
  now: Date;
}): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('A delivery needs at least one signing secret');
  const t = Math.floor(input.now.getTime() / 1000);
  const v1 = input.secrets.map((secret) => `v1=${signPayload(secret, t, input.body)}`).join(',');
  const standard = input.secrets
    .map((secret) => `v1,${signStandardWebhook(secret, input.deliveryId, t, input.body)}`)
    .join(' ');
  return {
    'X-Service-Event': input.event,
    'X-Service-Signature': `t=${t},${v1}`,
    'X-Service-Timestamp': String(t),
    'X-Service-Delivery': input.deliveryId,
    'X-Service-Event-Id': input.eventId,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(t),
    'webhook-signature': standard,
  };
}
