import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { isUuid, type WebhookEvent } from '../domain';
import { inTimestampRange, TIMESTAMP_RANGE_TEXT } from '../db/storage-bounds';
import { notFound, validationError } from '../errors';
import { deliveryStateSql, inDeliveryState, type DeliveryState } from './delivery-state';
import { getEndpointOrThrow } from './endpoints';

/** One delivery (one event for one endpoint) with its state and the outcome of its latest attempt. */
export interface DeliveryRecord {
  id: string;
  endpointId: string;
  event: WebhookEvent;
  state: DeliveryState;
  attempts: number;
  /** The meeting the event is about (data.id of the payload): a note id, or a test event's sample id. */
  noteId: string | null;
  test: boolean;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  cancelledReason: string | null;
  resentAs: string | null;
  createdAt: Date;
}

export interface DeliveryFilter {
  state?: DeliveryState;
  event?: WebhookEvent;
  /** Created at or after. */
  since?: Date;
  /** Created before. */
  until?: Date;
  /** A delivery id or a note id (the payload's data.id). */
  lookup?: string;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

function toRecord(r: Record<string, unknown>): DeliveryRecord {
  return {
    id: r.id as string,
    endpointId: r.endpoint_id as string,
    event: r.event as WebhookEvent,
    state: r.state as DeliveryState,
    attempts: Number(r.attempts_made),
    noteId: (r.note_id as string | null) ?? null,
    test: r.meeting_id === null,
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
    lastError: (r.last_error as string | null) ?? null,
    lastAttemptAt: date(r.last_attempt_at),
    nextAttemptAt: date(r.next_attempt_at),
    cancelledReason: (r.cancelled_reason as string | null) ?? null,
    resentAs: (r.resent_as as string | null) ?? null,
    createdAt: date(r.created_at) as Date,
  };
}

const selectDeliveries = (where: SQL, tail: SQL) => sql`
  select d.id, d.endpoint_id, d.event, ${deliveryStateSql} as state, d.attempts_made, d.next_attempt_at,
         d.cancelled_reason, d.resent_as, d.created_at, ev.meeting_id, ev.data->>'id' as note_id,
         la.status_code as last_status_code, la.error as last_error, la.created_at as last_attempt_at
  from deliveries d
  join events ev on ev.id = d.event_id
  left join lateral (
    select a.status_code, a.error, a.created_at from delivery_attempts a
    where a.delivery_id = d.id order by a.attempt desc limit 1
  ) la on true
  where ${where}
  ${tail}`;

/**
 * An endpoint's deliveries, newest first, a page at a time (keyset on
 * created_at, id), filtered by state, event, time range, or looked up by delivery or note id.
 */
export async function listDeliveries(
  db: Queryable,
  accountId: string,
  endpointId: string,
  page: { limit: number; after?: { createdAt: Date; id: string } } & DeliveryFilter,
): Promise<{ deliveries: DeliveryRecord[]; hasMore: boolean }> {
  for (const bound of [page.since, page.until])
    if (bound && !inTimestampRange(bound.getTime()))
      throw validationError(`Times must be between ${TIMESTAMP_RANGE_TEXT}`);
  await getEndpointOrThrow(db, accountId, endpointId);
  const conditions: SQL[] = [sql`d.endpoint_id = ${endpointId}`];
  if (page.state) conditions.push(inDeliveryState(page.state));
  if (page.event) conditions.push(sql`d.event = ${page.event}`);
  if (page.since) conditions.push(sql`d.created_at >= ${page.since.toISOString()}`);
  if (page.until) conditions.push(sql`d.created_at < ${page.until.toISOString()}`);
  if (page.lookup !== undefined) {
    // Not an id: nothing can match, and the database is not asked to compare a uuid with it.
    if (!isUuid(page.lookup)) return { deliveries: [], hasMore: false };
    const id = page.lookup.toLowerCase();
    conditions.push(sql`(d.id = ${id} or ev.meeting_id = ${id} or ev.data->>'id' = ${id})`);
  }
  if (page.after)
    conditions.push(sql`(d.created_at, d.id) < (${page.after.createdAt.toISOString()}, ${page.after.id})`);
  const rows = await queryRows(
    db,
    selectDeliveries(
      sql.join(conditions, sql` and `),
      sql`order by d.created_at desc, d.id desc limit ${page.limit + 1}`,
    ),
  );
  return { deliveries: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit };
}

export interface AttemptDetail {
  id: string;
  attempt: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  requestHeaders: Record<string, string>;
  responseBody: string | null;
  createdAt: Date;
}

/** One delivery with its payload and every attempt, oldest first (the expanded row). */
export async function getDelivery(
  db: Queryable,
  accountId: string,
  deliveryId: string,
): Promise<DeliveryRecord & { payload: string; attemptLog: AttemptDetail[] }> {
  if (!isUuid(deliveryId)) throw notFound('Delivery');
  const [row] = await queryRows(
    db,
    sql`select x.*, d2.payload from (${selectDeliveries(
      sql`d.id = ${deliveryId.toLowerCase()} and d.endpoint_id in (select id from webhook_endpoints where account_id = ${accountId})`,
      sql``,
    )}) x join deliveries d2 on d2.id = x.id`,
  );
  if (!row) throw notFound('Delivery');
  const attempts = await queryRows(
    db,
    sql`select id, attempt, status_code, success, error, duration_ms, request_headers, response_body, created_at
        from delivery_attempts where delivery_id = ${deliveryId.toLowerCase()} order by attempt`,
  );
  return {
    ...toRecord(row),
    payload: row.payload as string,
    attemptLog: attempts.map((a) => ({
      id: a.id as string,
      attempt: Number(a.attempt),
      statusCode: a.status_code === null ? null : Number(a.status_code),
      success: Boolean(a.success),
      error: (a.error as string | null) ?? null,
      durationMs: Number(a.duration_ms),
      requestHeaders: (typeof a.request_headers === 'string'
        ? JSON.parse(a.request_headers)
        : a.request_headers) as Record<string, string>,
      responseBody: (a.response_body as string | null) ?? null,
      createdAt: date(a.created_at) as Date,
    })),
  };
}
