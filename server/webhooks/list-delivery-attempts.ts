import { and, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client';
import { deliveries, deliveryAttempts } from '../db/schema';
import { getEndpointOrThrow, listEndpoints, type WebhookEndpoint } from './endpoints';

export interface DeliveryAttemptRecord {
  id: string;
  deliveryId: string;
  event: string;
  attempt: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  payload: string;
  requestHeaders: unknown;
  responseBody: string | null;
  createdAt: Date;
}

/** Form B's delivery log: an endpoint's attempts, newest first, a page at a time (keyset on created_at, id). */
export async function listDeliveryAttempts(
  db: Queryable,
  accountId: string,
  endpointId: string,
  page: { limit: number; after?: { createdAt: Date; id: string }; success?: boolean },
): Promise<{ attempts: DeliveryAttemptRecord[]; hasMore: boolean }> {
  await getEndpointOrThrow(db, accountId, endpointId);
  const rows = await db
    .select({
      id: deliveryAttempts.id,
      deliveryId: deliveryAttempts.deliveryId,
      event: deliveries.event,
      attempt: deliveryAttempts.attempt,
      statusCode: deliveryAttempts.statusCode,
      success: deliveryAttempts.success,
      error: deliveryAttempts.error,
      durationMs: deliveryAttempts.durationMs,
      payload: deliveries.payload,
      requestHeaders: deliveryAttempts.requestHeaders,
      responseBody: deliveryAttempts.responseBody,
      createdAt: deliveryAttempts.createdAt,
    })
    .from(deliveryAttempts)
    .innerJoin(deliveries, eq(deliveries.id, deliveryAttempts.deliveryId))
    .where(
      and(
        eq(deliveryAttempts.endpointId, endpointId),
        page.success === undefined ? undefined : eq(deliveryAttempts.success, page.success),
        // A row comparison: an index condition on (endpoint_id, created_at, id) at any depth.
        page.after
          ? sql`(${deliveryAttempts.createdAt}, ${deliveryAttempts.id}) < (${page.after.createdAt.toISOString()}::timestamptz, ${page.after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(desc(deliveryAttempts.createdAt), desc(deliveryAttempts.id))
    .limit(page.limit + 1);
  return { attempts: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export interface LatestAttempt {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  createdAt: Date;
}

/** The account's endpoints, newest first, each with the result of its latest attempt (one query for all). */
export async function listEndpointsWithLatestAttempt(
  db: Queryable,
  accountId: string,
): Promise<(WebhookEndpoint & { latestAttempt: LatestAttempt | null })[]> {
  const endpoints = await listEndpoints(db, accountId);
  const latest = await queryRows<{
    endpoint_id: string;
    success: boolean;
    status_code: number | null;
    error: string | null;
    created_at: string | Date;
  }>(
    db,
    sql`select distinct on (endpoint_id) endpoint_id, success, status_code, error, created_at
        from delivery_attempts
        where endpoint_id in (select id from webhook_endpoints where account_id = ${accountId})
        order by endpoint_id, created_at desc, id desc`,
  );
  const byEndpoint = new Map(latest.map((l) => [l.endpoint_id, l]));
  return endpoints.map((endpoint) => {
    const last = byEndpoint.get(endpoint.id);
    return {
      ...endpoint,
      latestAttempt: last
        ? {
            success: last.success,
            statusCode: last.status_code,
            error: last.error,
            createdAt: new Date(last.created_at),
          }
        : null,
    };
  });
}
