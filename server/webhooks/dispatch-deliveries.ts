import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import { deliveries, deliveryAttempts } from '../db/schema';
import { WEBHOOK_MAX_ATTEMPTS } from '../domain';
import type { Mailer } from '../email/send-email';
import { deactivateEndpoint } from './endpoints';
import type { WebhookSender } from './http-sender';
import type { SecretBox } from './secret-box';
import { deliveryHeaders } from './sign-payload';

/** SPEC 6.5: the initial attempt plus three retries. */
export const MAX_ATTEMPTS = WEBHOOK_MAX_ATTEMPTS;
/** A claimed delivery is another dispatcher's once this runs out: well above the 10 s attempt time-out. */
export const DELIVERY_LEASE_MS = 120_000;

export interface WebhookDeps {
  sender: WebhookSender;
  /** Seconds before attempts 2, 3 and 4 (D11 WEBHOOK_RETRY_DELAYS). */
  retryDelays: readonly [number, number, number];
  mailer: Mailer;
  /** Opens and seals the signing secrets kept encrypted at rest (issue 12). */
  secrets: SecretBox;
  /** The settings app's origin, for links in emails (NEXTAUTH_URL, else localhost:PORT). */
  appUrl: string;
}

export interface ClaimedDelivery {
  id: string;
  event: string;
  payload: string;
  attemptsMade: number;
  endpointId: string;
  url: string;
  /** As stored (sealed); opened at the attempt. */
  secret: string;
  /** A rotated-out secret still signing until `previousSecretExpiresAt` (issue 12 item 3). */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  accountId: string;
  ownerEmail: string;
}

/**
 * Claims due deliveries for this dispatcher. SKIP LOCKED keeps concurrent dispatchers (cron on
 * several instances, the in-process worker) off each other's rows; the lease gives a delivery
 * held by a dispatcher that died to another one later (D11: at-least-once, never lost).
 */
export async function claimDeliveries(
  db: Db,
  limit: number,
  leaseMs = DELIVERY_LEASE_MS,
): Promise<ClaimedDelivery[]> {
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`with claimed as (
          update deliveries set locked_until = now() + make_interval(secs => ${leaseMs / 1000})
          where id in (
            select id from deliveries
            where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
            order by next_attempt_at
            limit ${limit}
            for update skip locked)
          returning id, event, payload, attempts_made, endpoint_id)
        select c.*, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.account_id, a.email
        from claimed c join webhook_endpoints e on e.id = c.endpoint_id join accounts a on a.id = e.account_id`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    event: r.event as string,
    payload: r.payload as string,
    attemptsMade: Number(r.attempts_made),
    endpointId: r.endpoint_id as string,
    url: r.url as string,
    secret: r.secret as string,
    previousSecret: (r.previous_secret as string | null) ?? null,
    previousSecretExpiresAt: r.previous_secret_expires_at
      ? new Date(r.previous_secret_expires_at as string)
      : null,
    accountId: r.account_id as string,
    ownerEmail: r.email as string,
  }));
}

/** The secrets that sign an attempt at `now`, newest first (issue 12 item 3: both during an overlap). */
export function signingSecrets(
  box: SecretBox,
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const current = box.open(endpoint.secret);
  const overlapping =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime();
  return overlapping ? [current, box.open(endpoint.previousSecret as string)] : [current];
}

export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'gone';

/** Makes one attempt of a claimed delivery and records it (SPEC 6.5, D11, D13). */
export async function attemptDelivery(
  db: Db,
  deps: WebhookDeps,
  delivery: ClaimedDelivery,
): Promise<AttemptOutcome> {
  const attempt = delivery.attemptsMade + 1;
  const result = await deps.sender.send({
    url: delivery.url,
    headers: deliveryHeaders({
      secrets: signingSecrets(deps.secrets, delivery, new Date()),
      event: delivery.event,
      deliveryId: delivery.id,
      body: delivery.payload,
      now: new Date(),
    }),
    body: delivery.payload,
  });
  const endedAt = new Date();

  const outcome = await db.transaction(
    async (tx): Promise<{ outcome: AttemptOutcome; deactivated: boolean }> => {
      const [current] = await tx
        .select()
        .from(deliveries)
        .where(eq(deliveries.id, delivery.id))
        .for('update');
      if (!current) return { outcome: 'gone', deactivated: false }; // the endpoint was deleted meanwhile
      const recorded = await tx
        .insert(deliveryAttempts)
        .values({
          id: randomUUID(),
          deliveryId: delivery.id,
          endpointId: delivery.endpointId,
          attempt,
          statusCode: result.statusCode,
          success: result.success,
          error: result.error,
          durationMs: Math.round(result.durationMs),
          requestHeaders: result.requestHeaders,
          responseBody: result.responseBody,
          createdAt: endedAt,
        })
        .onConflictDoNothing()
        .returning({ id: deliveryAttempts.id });
      // Another dispatcher already recorded this attempt (our lease had run out): leave it to that one.
      if (recorded.length === 0 || current.status !== 'pending')
        return { outcome: 'gone', deactivated: false };

      const base = { attemptsMade: attempt, lockedUntil: null };
      if (result.success) {
        await tx
          .update(deliveries)
          .set({ ...base, status: 'succeeded', nextAttemptAt: null })
          .where(eq(deliveries.id, delivery.id));
        return { outcome: 'succeeded', deactivated: false };
      }
      if (attempt < MAX_ATTEMPTS) {
        const delaySeconds = deps.retryDelays[attempt - 1];
        if (delaySeconds === undefined) throw new Error(`No webhook retry delay for attempt ${attempt + 1}`);
        const delay = delaySeconds * 1000;
        await tx
          .update(deliveries)
          .set({ ...base, nextAttemptAt: new Date(endedAt.getTime() + delay) })
          .where(and(eq(deliveries.id, delivery.id), eq(deliveries.status, 'pending')));
        return { outcome: 'retry', deactivated: false };
      }
      // SPEC 3.1: the fourth failure: the event is permanently failed and the endpoint inactive.
      await tx
        .update(deliveries)
        .set({ ...base, status: 'failed', nextAttemptAt: null })
        .where(eq(deliveries.id, delivery.id));
      return {
        outcome: 'failed',
        deactivated: await deactivateEndpoint(tx, delivery.endpointId, delivery.id),
      };
    },
  );

  if (outcome.deactivated) {
    await deps.mailer.send(db, {
      accountId: delivery.accountId,
      to: delivery.ownerEmail,
      subject: `Webhook endpoint deactivated: ${delivery.url}`,
      body: [
        `Your webhook endpoint ${delivery.url} has been deactivated: all ${MAX_ATTEMPTS} attempts to deliver a ${delivery.event} event failed.`,
        `Last attempt: ${result.statusCode ? `HTTP ${result.statusCode}` : (result.error ?? 'failed')}.`,
        `Delivery: ${delivery.id}`,
        '',
        'No further events are sent to it, and events that occur while it is inactive are not replayed.',
        'Once the endpoint works again, re-enable it, and resend what failed with Recover:',
        `${deps.appUrl}/webhooks/${delivery.endpointId}`,
      ].join('\n'),
    });
  }
  return outcome.outcome;
}
