import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../server/db/schema';
import { sendTestEvent } from '../../server/webhooks/test-and-resend';
import { runDueWork } from '../../server/worker/run-due-work';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// GET /v1/events and GET /v1/events/{id}: the account's meeting events of the last 30 days, each
// the envelope its webhooks carried plus the event's id, in both forms.

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

const SUMMARY = {
  context: 'Release planning.',
  decisions: ['Ship on Friday'],
  action_items: [{ task: 'Write the notes', owner: 'Ana', deadline: null }],
  participants: ['Ana', 'Ben'],
  next_step: null,
  budget_mentioned: null,
  sentiment: 'positive',
};

const dispatch = () => runDueWork(app.db, app.services, { budgetMs: 30_000 });

async function addEndpoint(key: string, name: string, status = 200) {
  const target = receiver.path(name, () => ({ status }));
  const res = await app.request('/v1/webhooks', {
    method: 'POST',
    key,
    json: { url: target.url, events: ['meeting.started', 'meeting.transcribed', 'summary.ready'] },
  });
  expect(res.status).toBe(201);
  return { ...target, endpointId: res.json.id as string };
}

/** Every page of GET /v1/events with this query, in order. */
async function allPages(key: string, query: string, form?: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = query ? '&' : '';
    const res = await app.request(
      `/v1/events?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key, ...(form && { form }) },
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.data);
    expect(res.json.has_more).toBe(res.json.next_cursor !== null);
    cursor = res.json.next_cursor;
    if (!cursor) return items;
  }
  throw new Error('more than 100 pages');
}

describe('GET /v1/events', () => {
  it("lists a meeting's events newest first: each is the envelope a delivery carried, with the id of its X-Service-Event-Id, in both forms", async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const target = await addEndpoint(key, 'events-envelopes');
    const meetingId = await app.recordNote(key, { summary: SUMMARY });
    await dispatch();
    const delivered = receiver.at(target.path);
    expect(delivered.map((r) => r.event)).toEqual([
      'meeting.started',
      'meeting.transcribed',
      'summary.ready',
    ]);

    const a = await app.request('/v1/events', { key });
    expect(a.status).toBe(200);
    expect(a.json.has_more).toBe(false);
    expect(a.json.next_cursor).toBeNull();
    expect(a.json.data.map((e: any) => e.event)).toEqual([
      'summary.ready',
      'meeting.transcribed',
      'meeting.started',
    ]);
    for (const item of a.json.data) {
      expect(Object.keys(item)).toEqual(['id', 'event', 'created_at', 'data']);
      expect(item.data.id).toBe(meetingId);
      const delivery = delivered.find((r) => r.headers['x-service-event-id'] === item.id);
      expect(delivery, item.event).toBeDefined();
      const { id: _id, ...envelope } = item;
      // The same content as the bytes delivered, keys in the same order.
      expect(JSON.stringify(envelope)).toBe(delivery!.body);
      const one = await app.request(`/v1/events/${item.id}`, { key });
      expect(one.status).toBe(200);
      expect(one.json).toEqual(item);
    }
    expect(a.json.data[0].data.summary).toEqual(SUMMARY);
    expect(a.json.data[2].data).toMatchObject({ transcript: [], ended_at: null, duration_seconds: null });

    // Form B lists the same events with the same bodies.
    const b = await app.request('/v1/events', { key, form: 'B' });
    expect(b.status).toBe(200);
    expect(b.json).toEqual(a.json);
    const oneB = await app.request(`/v1/events/${a.json.data[1].id}`, { key, form: 'B' });
    expect(oneB.json).toEqual(a.json.data[1]);
  });

  it('pages through every event exactly once, events sharing a created_at included, in both forms', async () => {
    const { key, account } = await app.createAccount({ form: 'A' });
    for (let i = 0; i < 4; i++) await app.recordNote(key, { transcribe: i % 2 === 0 });
    const ids = (
      await app.db.select({ id: events.id }).from(events).where(eq(events.accountId, account.id))
    ).map((e) => e.id);
    expect(ids).toHaveLength(6);
    // Three events of one millisecond: only their ids order them.
    const shared = new Date(Date.now() - 60_000);
    await app.db
      .update(events)
      .set({ createdAt: shared })
      .where(inArray(events.id, ids.slice(0, 3)));

    const all = await allPages(key, 'limit=100');
    expect(all).toHaveLength(6);
    const order = [...all].sort(
      (x, y) => y.created_at.localeCompare(x.created_at) || y.id.localeCompare(x.id),
    );
    expect(all.map((e) => e.id)).toEqual(order.map((e) => e.id));
    for (const form of ['A', 'B']) {
      for (const limit of [1, 2, 4]) {
        const paged = await allPages(key, `limit=${limit}`, form);
        expect(
          paged.map((e) => e.id),
          `Form ${form}, limit ${limit}`,
        ).toEqual(all.map((e) => e.id));
      }
    }
  });

  it('filters by type (meeting.completed lists the transcribed events under that name) and by when they happened, created_before exclusive in Form A and inclusive in Form B', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    for (let i = 0; i < 3; i++) await app.recordNote(key);
    const all = await allPages(key, '');
    expect(all).toHaveLength(6);

    const started = await allPages(key, 'type=meeting.started');
    expect(started.map((e) => e.id)).toEqual(
      all.filter((e) => e.event === 'meeting.started').map((e) => e.id),
    );
    const transcribed = all.filter((e) => e.event === 'meeting.transcribed');
    expect(transcribed).toHaveLength(3);
    const completed = await allPages(key, 'type=meeting.completed', 'B');
    expect(completed).toEqual(transcribed.map((e) => ({ ...e, event: 'meeting.completed' })));
    expect(await allPages(key, 'type=summary.ready')).toEqual([]);

    const pivot = all[2];
    const at = encodeURIComponent(pivot.created_at);
    const after = await allPages(key, `created_after=${at}`);
    expect(after.map((e) => e.id)).toEqual(
      all.filter((e) => e.created_at >= pivot.created_at).map((e) => e.id),
    );
    const beforeA = await allPages(key, `created_before=${at}`);
    expect(beforeA.map((e) => e.id)).toEqual(
      all.filter((e) => e.created_at < pivot.created_at).map((e) => e.id),
    );
    const beforeB = await allPages(key, `created_before=${at}`, 'B');
    expect(beforeB.map((e) => e.id)).toEqual(
      all.filter((e) => e.created_at <= pivot.created_at).map((e) => e.id),
    );
    // Filters combine with the type and with paging.
    const both = await allPages(key, `limit=1&type=meeting.started&created_after=${at}`);
    expect(both.map((e) => e.id)).toEqual(
      all.filter((e) => e.event === 'meeting.started' && e.created_at >= pivot.created_at).map((e) => e.id),
    );
  });

  it('refuses a bad query or id in the form of the request', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const cases: [string, number, number, RegExp][] = [
      ['type=meeting.ended', 422, 400, /type must be one of/],
      ['limit=0', 422, 400, /limit must be between 1 and 100/],
      ['limit=101', 422, 400, /limit/],
      ['limit=1.0', 400, 400, /limit must be an integer/],
      ['cursor=not-a-cursor!', 400, 400, /cursor/],
      ['cursor=MTIzOmFiYw', 400, 400, /cursor is malformed/],
      ['created_after=yesterday', 400, 400, /created_after/],
      [
        'created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z',
        422,
        400,
        /created_after must not be later/,
      ],
    ];
    for (const [query, statusA, statusB, message] of cases) {
      const a = await app.request(`/v1/events?${query}`, { key });
      expect(a.status, query).toBe(statusA);
      expect(a.json.error.message, query).toMatch(message);
      const b = await app.request(`/v1/events?${query}`, { key, form: 'B' });
      expect(b.status, query).toBe(statusB);
      expect(b.json.error, query).toMatch(message);
    }
    const badId = await app.request('/v1/events/not-a-uuid', { key });
    expect(badId.status).toBe(400);
    expect(badId.json.error).toEqual({ code: 'invalid_request', message: 'id must be a UUID' });
  });

  it("another account's events, test events and events past 30 days are neither listed nor found", async () => {
    const mine = await app.createAccount({ form: 'A' });
    const theirs = await app.createAccount({ form: 'B' });
    await app.recordNote(mine.key, { transcribe: false });
    await app.recordNote(mine.key, { transcribe: false });
    await app.recordNote(theirs.key, { transcribe: false });
    const target = await addEndpoint(mine.key, 'events-test-event');
    await sendTestEvent(app.db, { kick() {} }, mine.account.id, target.endpointId, 'summary.ready');
    const [theirEvent] = await app.db.select().from(events).where(eq(events.accountId, theirs.account.id));
    const testEvent = (await app.db.select().from(events).where(eq(events.accountId, mine.account.id))).find(
      (e) => e.meetingId === null,
    );
    expect(testEvent).toBeDefined();

    const listed = await allPages(mine.key, '');
    expect(listed).toHaveLength(2);
    expect(listed.every((e) => e.event === 'meeting.started')).toBe(true);
    for (const id of [theirEvent!.id, testEvent!.id]) {
      const a = await app.request(`/v1/events/${id}`, { key: mine.key });
      expect(a.status).toBe(404);
      expect(a.json.error).toEqual({ code: 'not_found', message: 'Event not found' });
      const b = await app.request(`/v1/events/${id}`, { key: mine.key, form: 'B' });
      expect(b).toMatchObject({ status: 404, json: { error: 'Event not found' } });
    }

    // Kept 30 days, whether or not the background has deleted the older ones yet.
    const DAY = 86_400_000;
    const [old, recent] = listed;
    await app.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 31 * DAY) })
      .where(eq(events.id, old.id));
    await app.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 29 * DAY) })
      .where(eq(events.id, recent.id));
    expect((await allPages(mine.key, '')).map((e) => e.id)).toEqual([recent.id]);
    expect((await app.request(`/v1/events/${old.id}`, { key: mine.key })).status).toBe(404);
    expect((await app.request(`/v1/events/${recent.id}`, { key: mine.key })).status).toBe(200);
  });

  it('a receiver that was down catches up: every event whose delivery failed is listed since the outage began, under the id its attempts carried', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const target = await addEndpoint(key, 'events-outage', 503);
    const outageBegan = new Date().toISOString();
    for (let i = 0; i < 3; i++) await app.recordNote(key, { summary: SUMMARY });
    await dispatch();
    const failed = receiver.at(target.path);
    expect(failed).toHaveLength(9);
    expect(failed.every((r) => r.status === 503)).toBe(true);

    const missed = await allPages(key, `created_after=${encodeURIComponent(outageBegan)}&limit=4`);
    expect(new Set(missed.map((e) => e.id))).toEqual(
      new Set(failed.map((r) => r.headers['x-service-event-id'])),
    );
    for (const attempt of failed) {
      const event = missed.find((e) => e.id === attempt.headers['x-service-event-id']);
      const { id: _id, ...envelope } = event;
      expect(envelope).toEqual(JSON.parse(attempt.body));
    }
  });

  it('counts against the rate limits like any /v1 call', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const first = await app.request('/v1/events', { key });
    const second = await app.request('/v1/events', { key });
    const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
    expect(remaining(second)).toBe(remaining(first) - 1);
  });
});
