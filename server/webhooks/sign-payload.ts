import { createHmac } from 'node:crypto';

/**
 * SPEC 6.4, D10: v1 is the hex HMAC-SHA256 of "<t>.<raw body>", keyed with the UTF-8 bytes of
 * the secret exactly as shown at creation (prefix included): Stripe's scheme.
 */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.${body}`, 'utf8')
    .digest('hex');
}

/** The headers of one attempt (SPEC 6.3, D10); t is the attempt's own time, so each attempt is signed anew. */
export function deliveryHeaders(input: {
  secret: string;
  event: string;
  deliveryId: string;
  body: string;
  now: Date;
}): Record<string, string> {
  const t = Math.floor(input.now.getTime() / 1000);
  return {
    'X-Service-Event': input.event,
    'X-Service-Signature': `t=${t},v1=${signPayload(input.secret, t, input.body)}`,
    'X-Service-Timestamp': String(t),
    'X-Service-Delivery': input.deliveryId,
  };
}
