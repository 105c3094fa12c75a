import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client';
import { inTimestampRange, TIMESTAMP_RANGE_TEXT } from '../db/storage-bounds';
import { conflict, notFound, validationError } from '../errors';
import type { DeliveryKick } from './test-and-resend';

/**
 * Svix's "recover failed messages": every delivery of the endpoint since `since`
 * that did not reach it — failed (all attempts used) or cancelled (when the endpoint was
 * deactivated) — is queued again as a new delivery of the same payload with fresh attempts,
 * through the normal dispatcher. Each is recovered once: the original names its new delivery.
 * Events that happened while the endpoint was inactive have no deliveries, so they
 * stay unsent.
 */
export async function recoverDeliveries(
  db: Db,
  worker: DeliveryKick,
  accountId: string,
  endpointId: string,
  since: Date,
): Promise<{ queued: number }> {
  if (Number.isNaN(since.getTime())) throw validationError('Choose the time to recover from');
  // Beyond what the database stores, a time is refused here, not left to fail in the query.
  if (!inTimestampRange(since.getTime()))
    throw validationError(`The time to recover from must be between ${TIMESTAMP_RANGE_TEXT}`);
  if (since.getTime() > Date.now()) throw validationError('The time to recover from is in the future');
  const queued = await db.transaction(async (tx) => {
    const [endpoint] = await queryRows<{ active: boolean }>(
      tx,
      sql`select active from webhook_endpoints where id = ${endpointId} and account_id = ${accountId} for update`,
    );
    if (!endpoint) throw notFound('Webhook endpoint');
    if (!endpoint.active)
      throw conflict('The endpoint is inactive: re-enable it before recovering deliveries');
    const now = new Date().toISOString();
    const [result] = await queryRows<{ n: number | string }>(
      tx,
      sql`with src as (
            select id as old_id, gen_random_uuid() as new_id, event_id, event, payload
            from deliveries
            where endpoint_id = ${endpointId} and status in ('failed', 'cancelled') and resent_as is null
              and created_at >= ${since.toISOString()}
            order by created_at
            for update),
          ins as (
            insert into deliveries (id, endpoint_id, event_id, event, payload, status, attempts_made, next_attempt_at, created_at)
            select new_id, ${endpointId}, event_id, event, payload, 'pending', 0, ${now}, ${now} from src
            returning id),
          upd as (
            update deliveries d set resent_as = src.new_id from src where d.id = src.old_id returning d.id)
          select count(*) as n from upd`,
    );
    return Number(result?.n ?? 0);
  });
  if (queued > 0) worker.kick();
  return { queued };
}
