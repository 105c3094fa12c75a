import { randomUUID } from 'node:crypto';
import { inArray, type SQL, sql } from 'drizzle-orm';
import { queryRows, type Db, type Tx } from '../db/client';
import { deliveries, deliveryAttempts } from '../db/schema';
import { WEBHOOK_MAX_ATTEMPTS } from '../domain';
import type { Mailer } from '../email/send-email';
import { deactivateEndpoint } from './endpoints';
import { log } from '../log';
import type { AttemptResult, WebhookSender } from './http-sender';
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
  /** Emails go only to a verified address (issue 15 item 1): a typo'd sign-up gets none. */
  ownerEmailVerified: boolean;
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
        select c.*, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.account_id, a.email, a.email_verified_at
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
    ownerEmailVerified: r.email_verified_at != null,
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

/** An attempt that was sent and awaits recording. */
export interface SentAttempt {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  endedAt: Date;
}

/** Sends one attempt of a claimed delivery (SPEC 6.3–6.5, D10–D12); records nothing. */
export async function sendAttempt(deps: WebhookDeps, delivery: ClaimedDelivery): Promise<SentAttempt> {
  const now = new Date();
  const headers = deliveryHeaders({
    secrets: signingSecrets(deps.secrets, delivery, now),
    event: delivery.event,
    deliveryId: delivery.id,
    body: delivery.payload,
    now,
  });
  const result = await deps.sender.send({ url: delivery.url, headers, body: delivery.payload });
  return { delivery, result, endedAt: new Date() };
}

/** A deadlock or serialization failure: the transaction can be run again as it is. */
function isRetryableTransactionError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === '40P01' || code === '40001') return true;
  }
  return false;
}

const RECORD_TRIES = 3;

interface Deactivation {
  sent: SentAttempt;
}

/**
 * Issue 14 item 4: records a batch of attempts and the deliveries' new states in one transaction
 * (SPEC 6.5, D11, D13). Per delivery, as one attempt at a time did:
 * - a delivery deleted meanwhile (its endpoint was deleted) is dropped: 'gone';
 * - an attempt already recorded (another dispatcher took the delivery over after our lease ran
 *   out) or a delivery no longer pending (cancelled meanwhile) changes no state: 'gone';
 * - otherwise success → succeeded; a failure → due again after its retry delay; the fourth
 *   failure → failed, and its endpoint is deactivated (its other pending deliveries cancelled),
 *   once per endpoint however many of its deliveries failed for the fourth time in the batch, so
 *   its owner gets exactly one email (sent after the commit).
 * The delivery rows are locked in id order; a deadlock with another transaction (PostgreSQL
 * picks one to fail) runs the batch again, as recording is idempotent.
 */
export async function recordAttempts(
  db: Db,
  deps: WebhookDeps,
  sent: readonly SentAttempt[],
): Promise<AttemptOutcome[]> {
  if (sent.length === 0) return [];
  let recorded: { outcomes: Map<SentAttempt, AttemptOutcome>; deactivated: Deactivation[] } | undefined;
  for (let tries = 1; ; tries++) {
    try {
      recorded = await db.transaction((tx) => recordInTransaction(tx, deps, sent));
      break;
    } catch (err) {
      if (tries >= RECORD_TRIES || !isRetryableTransactionError(err)) throw err;
    }
  }
  for (const { sent: failed } of recorded.deactivated) {
    const { delivery, result } = failed;
    if (!delivery.ownerEmailVerified) {
      log.info('webhook deactivation email not sent: the owner has not verified the address', {
        endpoint: delivery.endpointId,
      });
      continue;
    }
    try {
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
    } catch (err) {
      log.error('webhook deactivation email not sent', { endpoint: delivery.endpointId, err });
    }
  }
  const outcomes = recorded.outcomes;
  return sent.map((s) => outcomes.get(s) ?? 'gone');
}

async function recordInTransaction(
  tx: Tx,
  deps: WebhookDeps,
  sent: readonly SentAttempt[],
): Promise<{ outcomes: Map<SentAttempt, AttemptOutcome>; deactivated: Deactivation[] }> {
  const outcomes = new Map<SentAttempt, AttemptOutcome>();
  const ids = [...new Set(sent.map((s) => s.delivery.id))].sort();
  const current = await tx
    .select({ id: deliveries.id, status: deliveries.status })
    .from(deliveries)
    .where(inArray(deliveries.id, ids))
    .orderBy(deliveries.id)
    .for('update');
  const statusOf = new Map(current.map((r) => [r.id, r.status]));
  // A delivery deleted meanwhile (with its endpoint) has no row to record against.
  const present = sent.filter((s) => statusOf.has(s.delivery.id));
  if (present.length === 0) return { outcomes, deactivated: [] };

  const inserted = await tx
    .insert(deliveryAttempts)
    .values(
      present.map(({ delivery, result, endedAt }) => ({
        id: randomUUID(),
        deliveryId: delivery.id,
        endpointId: delivery.endpointId,
        attempt: delivery.attemptsMade + 1,
        statusCode: result.statusCode,
        success: result.success,
        error: result.error,
        durationMs: Math.round(result.durationMs),
        requestHeaders: result.requestHeaders,
        responseBody: result.responseBody,
        createdAt: endedAt,
      })),
    )
    .onConflictDoNothing()
    .returning({ deliveryId: deliveryAttempts.deliveryId, attempt: deliveryAttempts.attempt });
  const insertedKeys = new Set(inserted.map((r) => `${r.deliveryId}/${r.attempt}`));

  const changes: SQL[] = [];
  const fourthFailures: SentAttempt[] = [];
  for (const s of present) {
    const { delivery, result, endedAt } = s;
    const attempt = delivery.attemptsMade + 1;
    // Another dispatcher already recorded this attempt (our lease had run out), or the delivery
    // was cancelled meanwhile: its state is not ours to change.
    if (!insertedKeys.has(`${delivery.id}/${attempt}`) || statusOf.get(delivery.id) !== 'pending') continue;
    let status: 'pending' | 'succeeded' | 'failed';
    let next: string | null = null;
    if (result.success) {
      status = 'succeeded';
      outcomes.set(s, 'succeeded');
    } else if (attempt < MAX_ATTEMPTS) {
      const delaySeconds = deps.retryDelays[attempt - 1];
      if (delaySeconds === undefined) throw new Error(`No webhook retry delay for attempt ${attempt + 1}`);
      status = 'pending';
      next = new Date(endedAt.getTime() + delaySeconds * 1000).toISOString();
      outcomes.set(s, 'retry');
    } else {
      // SPEC 3.1: the fourth failure: the event is permanently failed and the endpoint inactive.
      status = 'failed';
      outcomes.set(s, 'failed');
      fourthFailures.push(s);
    }
    changes.push(sql`(${delivery.id}::uuid, ${status}, ${attempt}::int, ${next}::timestamptz)`);
  }
  if (changes.length > 0) {
    await tx.execute(
      sql`update deliveries as d
          set status = v.status, attempts_made = v.attempts_made, next_attempt_at = v.next_attempt_at, locked_until = null
          from (values ${sql.join(changes, sql`, `)}) as v(id, status, attempts_made, next_attempt_at)
          where d.id = v.id and d.status = 'pending'`,
    );
  }

  // After the states above, so a retry scheduled in this batch for the same endpoint is cancelled
  // with the others (D11) and a success recorded in it stays a success.
  const deactivated: Deactivation[] = [];
  const seen = new Set<string>();
  for (const s of fourthFailures) {
    if (seen.has(s.delivery.endpointId)) continue;
    seen.add(s.delivery.endpointId);
    if (await deactivateEndpoint(tx, s.delivery.endpointId, s.delivery.id)) deactivated.push({ sent: s });
  }
  return { outcomes, deactivated };
}

/** Makes one attempt of a claimed delivery and records it (SPEC 6.5, D11, D13). */
export async function attemptDelivery(
  db: Db,
  deps: WebhookDeps,
  delivery: ClaimedDelivery,
): Promise<AttemptOutcome> {
  const [outcome] = await recordAttempts(db, deps, [await sendAttempt(deps, delivery)]);
  return outcome ?? 'gone';
}
