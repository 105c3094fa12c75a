import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client';
import { log } from '../log';

/** How long events (and with them their deliveries and attempt log) are kept. */
export const EVENT_RETENTION_DAYS = 30;

/** Events created before this instant are past their retention, whether or not they are pruned yet. */
export const eventRetentionStart = (now: Date) => new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000);

const BATCH = 1000;
const MAX_BATCHES = 20;
const EVERY_MS = 60 * 60_000;

/**
 * Deletes events older than EVENT_RETENTION_DAYS whose deliveries are all settled, with their
 * deliveries and attempts (docs/rules.md#retention), in batches so that no statement holds many
 * rows: at most MAX_BATCHES × BATCH per call. A delivery still pending (a retry, with long retry
 * delays) keeps its event until it settles. Returns how many events were deleted.
 */
export async function pruneOldEvents(db: Db, now: Date = new Date()): Promise<number> {
  const before = eventRetentionStart(now).toISOString();
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`delete from events where id in (
            select ev.id from events ev
            where ev.created_at < ${before}::timestamptz
              and not exists (select 1 from deliveries d where d.event_id = ev.id and d.status = 'pending')
            order by ev.created_at
            limit ${sql.raw(String(BATCH))})
          returning id`,
    );
    total += rows.length;
    if (rows.length < BATCH) break;
  }
  return total;
}

const lastPruned = new WeakMap<Db, number>();

/**
 * pruneOldEvents at most once an hour per database in this process, from the dispatcher's side of
 * the background work (the in-process worker or the cron route). A failure is logged; the next
 * hour tries again.
 */
export async function pruneOldEventsHourly(db: Db): Promise<void> {
  const now = Date.now();
  if (now - (lastPruned.get(db) ?? 0) < EVERY_MS) return;
  lastPruned.set(db, now);
  try {
    const deleted = await pruneOldEvents(db);
    if (deleted > 0)
      log.info('old events deleted', { events: deleted, retention_days: EVENT_RETENTION_DAYS });
  } catch (err) {
    log.warn('old events not deleted; trying again in an hour', { err });
  }
}
