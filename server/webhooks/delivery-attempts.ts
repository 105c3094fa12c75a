import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import { WEBHOOK_MAX_ATTEMPTS } from '../domain';
import type { Mailer } from '../email/send-email';
import { deactivateEndpoint } from './endpoints';
import { log } from '../log';
import type { AttemptResult, WebhookSender } from './http-sender';
import type { SecretBox } from './secret-box';
import { deliveryHeaders } from './sign-payload';
import { withSpan } from '../telemetry/tracing';

// The steps of a delivery attempt, which the dispatcher (dispatchDueDeliveries in
// dispatch-batch.ts) runs for many deliveries at once: claim due deliveries under a lease, send a
// signed attempt, and record finished attempts with their deliveries' new states.

/** The initial attempt plus three retries. */
export const MAX_ATTEMPTS = WEBHOOK_MAX_ATTEMPTS;
/** A claimed delivery is another dispatcher's once this runs out: well above the 10 s attempt time-out. */
export const DELIVERY_LEASE_MS = 120_000;

export interface WebhookDeps {
  sender: WebhookSender;
  /** Seconds before attempts 2, 3 and 4 (WEBHOOK_RETRY_DELAYS). */
  retryDelays: readonly [number, number, number];
  mailer: Mailer;
  /** Opens and seals the signing secrets kept encrypted at rest. */
  secrets: SecretBox;
  /** The settings app's origin, for links in emails (NEXTAUTH_URL, else localhost:PORT). */
  appUrl: string;
}

export interface ClaimedDelivery {
  id: string;
  event: string;
  /** The event's own id, sent as X-Service-Event-Id on every delivery of it. */
  eventId: string;
  payload: string;
  attemptsMade: number;
  endpointId: string;
  url: string;
  /** As stored (sealed); opened at the attempt. */
  secret: string;
  /** A rotated-out secret still signing until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  accountId: string;
  ownerEmail: string;
  /** Emails go only to a verified address: a typo'd sign-up gets none. */
  ownerEmailVerified: boolean;
  /** The `locked_until` this claim wrote, as text: names the lease for a release. */
  lease: string;
  /** How long the attempt had been due when claimed: the queue's delay, for its trace. */
  waitedMs: number;
  /**
   * A test event's delivery (its event has no meeting): it is attempted, retried and logged like
   * any other, but its failures never deactivate the endpoint nor email its owner.
   */
  test: boolean;
}

/**
 * Whether a pending delivery is to be attempted within `withinMs` from now, whether another
 * dispatcher holds it or not (an attempt that fails comes back due later): a cron run that waits
 * for work falling due stops once this is false.
 */
export async function deliveryFallsDueWithin(db: Db, withinMs: number): Promise<boolean> {
  const [row] = await queryRows<{ due: boolean }>(
    db,
    sql`select exists (
          select 1 from deliveries
          where status = 'pending' and next_attempt_at < now() + make_interval(secs => ${Math.max(0, withinMs) / 1000})) as due`,
  );
  return row?.due === true;
}

/**
 * Claims due deliveries for this dispatcher. SKIP LOCKED keeps concurrent dispatchers (cron on
 * several instances, the in-process worker) off each other's rows; the lease gives a delivery
 * held by a dispatcher that died to another one later (at least once, never lost).
 */
export async function claimDeliveries(
  db: Db,
  limit: number,
  leaseMs = DELIVERY_LEASE_MS,
): Promise<ClaimedDelivery[]> {
  // Both numbers are written into the statement: a statement without parameters takes one round
  // trip on postgres.js (with parameters, two: it asks for their types first).
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`Cannot claim ${limit} deliveries`);
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new Error(`Bad delivery lease: ${leaseMs} ms`);
  const rows = await queryRows<Record<string, unknown>>(
    db,
    // Picked in a step run once, as claimJobs explains: never more than `limit` are locked. A
    // first attempt waits while a first attempt of an earlier event of the same meeting to the
    // same endpoint is still to be made or in flight (docs/rules.md#order-of-a-meetings-events).
    sql`with picked as materialized (
          select id from deliveries d
          where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
            and not (d.attempts_made = 0 and d.meeting_id is not null and exists (
              select 1 from deliveries p
              where p.endpoint_id = d.endpoint_id and p.meeting_id = d.meeting_id
                and p.status = 'pending' and p.attempts_made = 0 and p.meeting_id is not null
                and p.created_at < d.created_at))
          order by next_attempt_at
          limit ${sql.raw(String(limit))}
          for update skip locked),
        claimed as (
          update deliveries set locked_until = now() + make_interval(secs => ${sql.raw(String(leaseMs / 1000))})
          from picked where deliveries.id = picked.id
          returning deliveries.id, event, event_id, payload, attempts_made, endpoint_id, locked_until::text as lease,
                    (extract(epoch from now() - next_attempt_at) * 1000)::float8 as waited_ms)
        select c.*, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.account_id, a.email,
               a.email_verified_at, ev.meeting_id is null as test
        from claimed c join webhook_endpoints e on e.id = c.endpoint_id join accounts a on a.id = e.account_id
          join events ev on ev.id = c.event_id`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    event: r.event as string,
    eventId: r.event_id as string,
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
    lease: r.lease as string,
    waitedMs: Math.max(0, Number(r.waited_ms)),
    test: r.test === true,
  }));
}

/**
 * Clears the leases of claimed deliveries this dispatcher will not attempt (it is stopping), so
 * another dispatcher takes them at once. Only the lease each claim wrote is cleared: a delivery
 * whose lease ran out and was claimed again is left to its new holder. Returns how many.
 */
export async function releaseDeliveries(
  db: Db,
  held: readonly { id: string; lease: string }[],
): Promise<number> {
  if (held.length === 0) return 0;
  const rows = await queryRows(
    db,
    sql`update deliveries d set locked_until = null
        from jsonb_to_recordset(${JSON.stringify(held)}::jsonb) as r(id uuid, lease text)
        where d.id = r.id and d.status = 'pending' and d.locked_until = r.lease::timestamptz
        returning d.id`,
  );
  return rows.length;
}

/** The secrets that sign an attempt at `now`, newest first (both during a rotation's overlap). */
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

/**
 * Sends one attempt of a claimed delivery, signed; records nothing. With a
 * signal, an attempt still waiting for the sender's slot when it aborts is not sent
 * (AttemptNotStartedError): its lease can be released at once.
 */
export async function sendAttempt(
  deps: WebhookDeps,
  delivery: ClaimedDelivery,
  signal?: AbortSignal,
): Promise<SentAttempt> {
  const now = new Date();
  const headers = deliveryHeaders({
    secrets: signingSecrets(deps.secrets, delivery, now),
    event: delivery.event,
    eventId: delivery.eventId,
    deliveryId: delivery.id,
    body: delivery.payload,
    now,
  });
  const attempt = delivery.attemptsMade + 1;
  // The target's host only: a URL's path and query may hold the receiver's own tokens.
  const around = (send: () => Promise<AttemptResult>) =>
    withSpan(
      'webhook.attempt',
      {
        'server.address': hostOf(delivery.url),
        'webhook.attempt': attempt,
        'webhook.event': delivery.event,
        'webhook.delivery_id': delivery.id,
        'webhook.wait_ms': delivery.waitedMs,
      },
      async (span) => {
        const sent = await send();
        span.set({
          'webhook.outcome': sent.success ? 'succeeded' : 'failed',
          ...(sent.statusCode !== null && { 'http.response.status_code': sent.statusCode }),
          ...(sent.error !== null && { 'error.type': sent.error.slice(0, 120) }),
        });
        if (!sent.success) span.fail(sent.error ?? `HTTP ${sent.statusCode}`);
        return sent;
      },
      { kind: 'client' },
    );
  const result = await deps.sender.send(
    { url: delivery.url, headers, body: delivery.payload },
    { around, ...(signal && { signal }) },
  );
  return { delivery, result, endedAt: new Date() };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'invalid';
  }
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

/**
 * One statement records a whole batch. Its one parameter is a JSON array of the attempts, each
 * with the state its delivery moves to if this attempt is the one recorded; read as a table:
 * - `locked` locks the deliveries still there (one deleted with its endpoint has no row to record
 *   against), in id order, so concurrent recorders cannot deadlock on them, and reads their latest
 *   committed status;
 * - `inserted` adds an attempt for each of them, skipping one already recorded (the unique
 *   (delivery_id, attempt): another dispatcher took the delivery over after our lease ran out);
 * - `changed` moves to its new state each delivery whose attempt was inserted here and that is
 *   still pending (not cancelled meanwhile), and the statement returns those with their status.
 */
const [RECORD_BATCH_HEAD, RECORD_BATCH_TAIL] = `with input as materialized (
    select * from jsonb_to_recordset($1::jsonb) as x(
      id uuid, delivery_id uuid, endpoint_id uuid, attempt int, status_code int, success boolean,
      error text, duration_ms int, request_headers jsonb, response_body text, created_at timestamptz,
      next_status text, next_attempt_at timestamptz)),
  locked as materialized (
    select d.id, d.status from deliveries d
    where d.id in (select delivery_id from input)
    order by d.id
    for update),
  inserted as (
    insert into delivery_attempts
      (id, delivery_id, endpoint_id, attempt, status_code, success, error, duration_ms,
       request_headers, response_body, created_at)
    select i.id, i.delivery_id, i.endpoint_id, i.attempt, i.status_code, i.success, i.error,
      i.duration_ms, i.request_headers, i.response_body, i.created_at
    from input i join locked l on l.id = i.delivery_id
    on conflict do nothing
    returning delivery_id, attempt),
  changed as (
    update deliveries d
    set status = i.next_status, attempts_made = i.attempt, next_attempt_at = i.next_attempt_at,
      locked_until = null
    from inserted n
      join input i on i.delivery_id = n.delivery_id and i.attempt = n.attempt
      join locked l on l.id = n.delivery_id and l.status = 'pending'
    where d.id = n.delivery_id and d.status = 'pending'
    returning d.id, d.status)
  select id, status from changed`.split('$1') as [string, string];

/** The state an attempt moves its delivery to if it is the one recorded. */
function nextState(
  deps: WebhookDeps,
  { delivery, result, endedAt }: SentAttempt,
): { status: 'pending' | 'succeeded' | 'failed'; next: string | null } {
  const attempt = delivery.attemptsMade + 1;
  if (result.success) return { status: 'succeeded', next: null };
  // The fourth failure: the event is permanently failed and the endpoint inactive.
  if (attempt >= MAX_ATTEMPTS) return { status: 'failed', next: null };
  const delaySeconds = deps.retryDelays[attempt - 1];
  if (delaySeconds === undefined) throw new Error(`No webhook retry delay for attempt ${attempt + 1}`);
  return { status: 'pending', next: new Date(endedAt.getTime() + delaySeconds * 1000).toISOString() };
}

const OUTCOME_OF_STATUS: Readonly<Record<string, AttemptOutcome>> = {
  succeeded: 'succeeded',
  pending: 'retry',
  failed: 'failed',
};

/**
 * Records a batch of attempts and the deliveries' new states at once
 * (docs/rules.md#delivery-retries-and-deactivation): one statement (RECORD_BATCH_HEAD), and one
 * transaction only when the batch holds a fourth failure. Per delivery, as if each attempt were
 * recorded alone:
 * - a delivery deleted meanwhile (its endpoint was deleted) is dropped: 'gone';
 * - an attempt already recorded (another dispatcher took the delivery over after our lease ran
 *   out) or a delivery no longer pending (cancelled meanwhile) changes no state: 'gone';
 * - otherwise success → succeeded; a failure → due again after its retry delay; the fourth
 *   failure → failed, and (unless it is a test event's) its endpoint is deactivated (its other pending deliveries cancelled),
 *   in the same transaction and after the batch's states (so a retry scheduled in the batch for
 *   that endpoint is cancelled with the others, and a success stays a success), once per
 *   endpoint however many of its deliveries failed for the fourth time in the batch, so its owner
 *   gets exactly one email (sent after the commit).
 * A deadlock with another transaction (PostgreSQL picks one to fail) runs the batch again, as
 * recording is idempotent.
 */
export async function recordAttempts(
  db: Db,
  deps: WebhookDeps,
  sent: readonly SentAttempt[],
): Promise<AttemptOutcome[]> {
  if (sent.length === 0) return [];
  // One row per delivery: a second attempt of the same delivery in a batch (its lease ran out and
  // this dispatcher claimed it again) is left to the lease, as an attempt already recorded is.
  const byDelivery = new Map<string, SentAttempt>();
  const input: Record<string, unknown>[] = [];
  const fourthFailures: SentAttempt[] = [];
  for (const s of sent) {
    const { delivery, result, endedAt } = s;
    if (byDelivery.has(delivery.id)) continue;
    byDelivery.set(delivery.id, s);
    const { status, next } = nextState(deps, s);
    // A test event is a probe of the endpoint, not traffic: its last failure changes nothing else.
    if (status === 'failed' && !delivery.test) fourthFailures.push(s);
    input.push({
      id: randomUUID(),
      delivery_id: delivery.id,
      endpoint_id: delivery.endpointId,
      attempt: delivery.attemptsMade + 1,
      status_code: result.statusCode,
      success: result.success,
      error: result.error,
      duration_ms: Math.round(result.durationMs),
      request_headers: result.requestHeaders,
      response_body: result.responseBody,
      created_at: endedAt.toISOString(),
      next_status: status,
      next_attempt_at: next,
    });
  }
  const statement = sql`${sql.raw(RECORD_BATCH_HEAD)}${JSON.stringify(input)}${sql.raw(RECORD_BATCH_TAIL)}`;

  let changed: { id: string; status: string }[] = [];
  let deactivated: SentAttempt[] = [];
  for (let tries = 1; ; tries++) {
    try {
      if (fourthFailures.length === 0) {
        changed = await queryRows(db, statement);
      } else {
        ({ changed, deactivated } = await db.transaction(async (tx) => {
          const rows = await queryRows<{ id: string; status: string }>(tx, statement);
          const failedNow = new Set(rows.filter((r) => r.status === 'failed').map((r) => r.id));
          const done: SentAttempt[] = [];
          const endpoints = new Set<string>();
          for (const s of fourthFailures) {
            if (!failedNow.has(s.delivery.id) || endpoints.has(s.delivery.endpointId)) continue;
            endpoints.add(s.delivery.endpointId);
            if (await deactivateEndpoint(tx, s.delivery.endpointId, s.delivery.id)) done.push(s);
          }
          return { changed: rows, deactivated: done };
        }));
      }
      break;
    } catch (err) {
      if (tries >= RECORD_TRIES || !isRetryableTransactionError(err)) throw err;
    }
  }

  for (const failed of deactivated) await emailDeactivation(db, deps, failed);
  const outcomes = new Map<SentAttempt, AttemptOutcome>();
  for (const row of changed) {
    const s = byDelivery.get(row.id);
    const outcome = OUTCOME_OF_STATUS[row.status];
    if (s && outcome) outcomes.set(s, outcome);
  }
  return sent.map((s) => outcomes.get(s) ?? 'gone');
}

/** Tells the owner (at a verified address only) of the deactivation. */
async function emailDeactivation(db: Db, deps: WebhookDeps, { delivery, result }: SentAttempt) {
  if (!delivery.ownerEmailVerified) {
    log.info('webhook deactivation email not sent: the owner has not verified the address', {
      endpoint: delivery.endpointId,
    });
    return;
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
