import { expect, test } from '@playwright/test';
import { recordNote } from '../test/support/recorder';
import { Receiver } from '../test/support/webhook-receiver';
import { demoLogin, readState } from './state';

// Through `npm start`: a receiver that was down while a meeting was recorded catches up with
// GET /v1/events, finding every event it missed under the id its failed attempts carried.

const state = readState();
const key = state.database === 'pglite' ? demoLogin(state).apiKey : state.accounts.main!.api_key;
const auth = { authorization: `Bearer ${key}` };

let receiver: Receiver;
test.beforeAll(async () => {
  receiver = await new Receiver().start();
  receiver.defaultStatus = 503;
});
test.afterAll(async () => {
  await receiver?.close();
});

test('a receiver that was down recovers every event it missed from GET /v1/events, in both forms', async ({
  request,
  baseURL,
}) => {
  const endpoint = await request.post('/v1/webhooks', {
    headers: auth,
    data: {
      url: `${receiver.base}/down`,
      events: ['meeting.started', 'meeting.completed', 'summary.ready'],
    },
  });
  expect(endpoint.status()).toBe(201);
  const endpointId = (await endpoint.json()).id as string;
  const outageBegan = new Date().toISOString();
  const noteId = await recordNote(baseURL!, key, {
    title: 'Missed while down',
    summary: {
      context: 'Recorded while the receiver was down.',
      decisions: [],
      action_items: [],
      participants: ['Ana', 'Ben'],
      next_step: null,
      budget_mentioned: null,
      sentiment: null,
    },
  });
  try {
    // Each event's first attempt fails; the retries would come 30 s later.
    await expect.poll(() => receiver.at('/down').length, { timeout: 30_000 }).toBe(3);
    const missed = receiver.at('/down');
    expect(missed.map((r) => r.event)).toEqual(['meeting.started', 'meeting.completed', 'summary.ready']);
    expect(missed.every((r) => r.status === 503)).toBe(true);

    for (const form of ['A', 'B']) {
      // Every page since the outage began, two events a page; the meeting.completed the endpoint
      // subscribed to is listed under that name when asked for by type.
      const listed: { id: string; event: string; created_at: string; data: { id: string } }[] = [];
      let cursor: string | null = null;
      do {
        const query = new URLSearchParams({ created_after: outageBegan, limit: '2' });
        if (cursor) query.set('cursor', cursor);
        const res = await request.get(`/v1/events?${query}`, { headers: { ...auth, 'x-api-form': form } });
        expect(res.status()).toBe(200);
        const page = await res.json();
        listed.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      const ours = listed.filter((e) => e.data.id === noteId);
      expect(
        ours.map((e) => e.event),
        `Form ${form}`,
      ).toEqual(['summary.ready', 'meeting.transcribed', 'meeting.started']);
      for (const attempt of missed) {
        const event = ours.find((e) => e.id === attempt.headers['x-service-event-id']);
        expect(event, `${attempt.event} in Form ${form}`).toBeDefined();
        const { id: _id, ...envelope } = event!;
        const body = JSON.parse(attempt.body);
        expect({ ...envelope, event: body.event }).toEqual(body);
      }
      const completed = await request.get('/v1/events?type=meeting.completed&limit=100', {
        headers: { ...auth, 'x-api-form': form },
      });
      const delivered = JSON.parse(missed[1]!.body);
      expect((await completed.json()).data).toContainEqual({
        id: missed[1]!.headers['x-service-event-id'],
        ...delivered,
      });
    }
  } finally {
    expect((await request.delete(`/v1/webhooks/${endpointId}`, { headers: auth })).status()).toBe(204);
    expect((await request.delete(`/v1/notes/${noteId}`, { headers: auth })).status()).toBe(204);
  }
});
