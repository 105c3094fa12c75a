import { randomUUID } from 'node:crypto';
import type { Db } from '../../server/db/client';
import { deliveries, events, meetings } from '../../server/db/schema';

/**
 * n pending deliveries of one `meeting.started` event to an endpoint, due now (or at `dueAt`),
 * with `attemptsMade` attempts behind them: the dispatch tests' starting point, inserted directly
 * (250 a statement) so a test of a thousand deliveries does not wait for the API. The event is a
 * real one, of a meeting started for it (a test event, which has no meeting, never deactivates).
 */
export async function insertDueDeliveries(
  db: Db,
  accountId: string,
  endpointId: string,
  n: number,
  opts: { attemptsMade?: number; dueAt?: Date } = {},
): Promise<string[]> {
  const eventId = randomUUID();
  const meetingId = randomUUID();
  const at = new Date(Date.now() - 1000);
  await db
    .insert(meetings)
    .values({ id: meetingId, accountId, platform: 'zoom', startedAt: at, createdAt: at });
  await db
    .insert(events)
    .values({ id: eventId, accountId, meetingId, type: 'meeting.started', data: {}, createdAt: at });
  const ids = Array.from({ length: n }, () => randomUUID());
  for (let i = 0; i < n; i += 250) {
    await db.insert(deliveries).values(
      ids.slice(i, i + 250).map((id, j) => ({
        id,
        endpointId,
        eventId,
        event: 'meeting.started' as const,
        payload: JSON.stringify({
          event: 'meeting.started',
          created_at: at.toISOString(),
          data: { n: i + j },
        }),
        attemptsMade: opts.attemptsMade ?? 0,
        nextAttemptAt: opts.dueAt ?? at,
        createdAt: at,
      })),
    );
  }
  return ids;
}
