import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveries, deliveryAttempts, events } from '../../server/db/schema';
import { EVENT_RETENTION_DAYS, pruneOldEvents } from '../../server/webhooks/prune-events';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// Events are kept 30 days: older ones are deleted in the background with their deliveries and
// attempt log, unless a delivery of theirs is still pending.

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const DAY = 86_400_000;

/** Moves an event, its deliveries and their attempts `days` into the past. */
async function age(eventId: string, days: number) {
  const at = new Date(Date.now() - days * DAY);
  await app.db.update(events).set({ createdAt: at }).where(eq(events.id, eventId));
  await app.db.update(deliveries).set({ createdAt: at }).where(eq(deliveries.eventId, eventId));
}

describe('event retention', () => {
  it(`events older than ${EVENT_RETENTION_DAYS} days go with their deliveries and attempts; a newer one, or one with a delivery still pending, stays`, async () => {
    const { key, account } = await app.createAccount({ form: 'A' });
    const ok = receiver.path('retention-ok');
    const failing = receiver.path('retention-failing', () => ({ status: 500 }));
    for (const url of [ok.url, failing.url]) {
      const res = await app.request('/v1/webhooks', {
        method: 'POST',
        key,
        json: { url, events: ['meeting.started'] },
      });
      expect(res.status).toBe(201);
    }
    const meetings = [];
    for (let i = 0; i < 3; i++) meetings.push(await app.recordNote(key, { transcribe: false }));
    await runDueWork(app.db, app.services, { budgetMs: 30_000 });
    const eventsOf = async () =>
      app.db
        .select({ id: events.id, meetingId: events.meetingId })
        .from(events)
        .where(eq(events.accountId, account.id));
    const byMeeting = new Map((await eventsOf()).map((e) => [e.meetingId, e.id]));
    const [old, kept, pending] = meetings.map((m) => byMeeting.get(m)!);
    // Settle every delivery but one of `pending`'s (the failing endpoint's retry stays pending).
    await app.db
      .update(deliveries)
      .set({ status: 'failed', nextAttemptAt: null })
      .where(sql`${deliveries.eventId} in (${old}, ${kept}) and ${deliveries.status} = 'pending'`);
    await age(old!, EVENT_RETENTION_DAYS + 1);
    await age(pending!, EVENT_RETENTION_DAYS + 1);
    await age(kept!, EVENT_RETENTION_DAYS - 1);
    const oldDeliveries = (
      await app.db.select({ id: deliveries.id }).from(deliveries).where(eq(deliveries.eventId, old!))
    ).map((d) => d.id);
    expect(oldDeliveries).toHaveLength(2);
    expect(
      await app.db.select().from(deliveryAttempts).where(inArray(deliveryAttempts.deliveryId, oldDeliveries)),
    ).toHaveLength(2);

    expect(await pruneOldEvents(app.db)).toBe(1);
    expect(new Set((await eventsOf()).map((e) => e.id))).toEqual(new Set([kept, pending]));
    expect(await app.db.select().from(deliveries).where(inArray(deliveries.id, oldDeliveries))).toEqual([]);
    expect(
      await app.db.select().from(deliveryAttempts).where(inArray(deliveryAttempts.deliveryId, oldDeliveries)),
    ).toEqual([]);
    // Once its last delivery settles, the old event goes too.
    await app.db
      .update(deliveries)
      .set({ status: 'failed', nextAttemptAt: null })
      .where(eq(deliveries.eventId, pending!));
    expect(await pruneOldEvents(app.db)).toBe(1);
    expect((await eventsOf()).map((e) => e.id)).toEqual([kept]);
    expect(await pruneOldEvents(app.db)).toBe(0);
  });

  it('the background work deletes them, on its first run in a process and then hourly', async () => {
    const other = await startTestApp();
    try {
      const { key, account } = await other.createAccount({ form: 'A' });
      await other.recordNote(key, { transcribe: false });
      await other.db
        .update(events)
        .set({ createdAt: new Date(Date.now() - (EVENT_RETENTION_DAYS + 1) * DAY) })
        .where(eq(events.accountId, account.id));
      await runDueWork(other.db, other.services, { budgetMs: 10_000 });
      expect(await other.db.select().from(events).where(eq(events.accountId, account.id))).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
