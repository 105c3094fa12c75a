import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCaller } from '../../server/api/root';
import { queryRows } from '../../server/db/client';
import { deliveries, webhookEndpoints } from '../../server/db/schema';
import { createWebhookSender } from '../../server/webhooks/http-sender';
import type { Resolver } from '../../server/webhooks/url-guard';
import { runDueWork } from '../../server/worker/run-due-work';
import { BrowserSession } from '../support/browser-session';
import { startTestApp, type TestApp } from '../support/test-app';
import { type Received, Receiver } from '../support/webhook-receiver';

// Deliveries with a state, edit, rotation with an overlap, Standard Webhooks headers,
// recovery, health, secrets sealed at rest. Through the settings app's procedures (the session is
// the account) and real receivers on 127.0.0.1; the dispatcher is run by the test (no worker), and
// a retry is made due by moving its next_attempt_at, so each state is observed on a settled system.

const stripe = new Stripe('sk_test_x');
let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  app = await startTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '30,300,1800' },
  });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const dispatch = () => runDueWork(app.db, app.services, { budgetMs: 30_000 });
const ui = (accountId: string) =>
  createCaller({ db: app.db, services: app.services, accountId, clientAddress: null });

async function makeDue(endpointId: string) {
  await app.db
    .update(deliveries)
    .set({ nextAttemptAt: new Date(Date.now() - 1000) })
    .where(sql`${deliveries.endpointId} = ${endpointId} and ${deliveries.status} = 'pending'`);
}

async function owner() {
  const { account, key } = await app.createAccount({ form: 'A' });
  return { account, key, ui: ui(account.id) };
}

/**
 * A real event: a meeting started through the recorder API with the owner's key. Returns its
 * delivery to the endpoint (subscribed to meeting.started).
 */
async function meetingStarted(o: Awaited<ReturnType<typeof owner>>, endpointId: string) {
  const meetingId = await app.recordNote(o.key, { transcribe: false });
  const [row] = await queryRows<{ id: string }>(
    app.db,
    sql`select d.id from deliveries d join events e on e.id = d.event_id
        where d.endpoint_id = ${endpointId} and e.meeting_id = ${meetingId}`,
  );
  if (!row) throw new Error('the meeting queued no delivery to the endpoint');
  return { deliveryId: row.id };
}

const states = async (caller: ReturnType<typeof ui>, id: string) =>
  (await caller.webhooks.deliveries({ id })).items.map((d) => d.state);

describe('a delivery has a state', () => {
  it('pending → retrying (next attempt shown) → failed after the 4th attempt; the endpoint is deactivated and names the delivery and its last error', async () => {
    const o = await owner();
    const target = receiver.path('states', () => ({ status: 503 }));
    const { endpoint } = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    const { deliveryId } = await meetingStarted(o, endpoint.id);
    expect(await states(o.ui, endpoint.id)).toEqual(['pending']);

    await dispatch();
    const [retrying] = (await o.ui.webhooks.deliveries({ id: endpoint.id })).items;
    expect(retrying).toMatchObject({ id: deliveryId, state: 'retrying', attempts: 1, lastStatusCode: 503 });
    // Attempt 2 is due 30 s after attempt 1 ended (the default retry delays).
    const wait = Date.parse(retrying!.nextAttemptAt!) - Date.parse(retrying!.lastAttemptAt!);
    expect(wait).toBe(30_000);
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, state: 'retrying' })).items).toHaveLength(1);
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, state: 'pending' })).items).toHaveLength(0);

    for (let i = 0; i < 3; i++) {
      await makeDue(endpoint.id);
      await dispatch();
    }
    const [failed] = (await o.ui.webhooks.deliveries({ id: endpoint.id })).items;
    expect(failed).toMatchObject({ state: 'failed', attempts: 4, lastStatusCode: 503, nextAttemptAt: null });
    expect(receiver.at(target.path)).toHaveLength(4);

    const got = await o.ui.webhooks.get({ id: endpoint.id });
    expect(got.active).toBe(false);
    expect(got.deactivatedBy).toMatchObject({
      deliveryId,
      event: 'meeting.started',
      attempts: 4,
      lastStatusCode: 503,
    });
    const detail = await o.ui.webhooks.delivery({ deliveryId });
    expect(detail.attemptLog.map((a) => [a.attempt, a.statusCode, a.success])).toEqual([
      [1, 503, false],
      [2, 503, false],
      [3, 503, false],
      [4, 503, false],
    ]);
    // The email names the delivery and links to the endpoint page.
    const [mail] = await queryRows<{ body: string }>(
      app.db,
      sql`select body from emails where account_id = ${o.account.id}`,
    );
    expect(mail!.body).toContain(deliveryId);
    expect(mail!.body).toContain(`/webhooks/${endpoint.id}`);
  });

  it('a test event failing all four attempts is failed in the log, and nothing else: the endpoint stays active, its other deliveries go on, no email', async () => {
    const o = await owner();
    const target = receiver.path('test-probe', () => ({ status: 503 }));
    const { endpoint } = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    const probe = await o.ui.webhooks.sendTest({ id: endpoint.id, event: 'meeting.started' });
    const real = await meetingStarted(o, endpoint.id);
    await dispatch();
    for (let i = 0; i < 3; i++) {
      await app.db
        .update(deliveries)
        .set({ nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(deliveries.id, probe.deliveryId));
      await dispatch();
    }
    const byId = new Map((await o.ui.webhooks.deliveries({ id: endpoint.id })).items.map((d) => [d.id, d]));
    expect(byId.get(probe.deliveryId)).toMatchObject({ state: 'failed', attempts: 4, lastStatusCode: 503 });
    expect(byId.get(real.deliveryId)).toMatchObject({ state: 'retrying', attempts: 1 });
    const got = await o.ui.webhooks.get({ id: endpoint.id });
    expect(got.active).toBe(true);
    expect(got.deactivatedBy).toBeNull();
    const mails = await queryRows(app.db, sql`select 1 from emails where account_id = ${o.account.id}`);
    expect(mails).toHaveLength(0);
    // A resent test is a test too: failing four times again changes nothing either.
    const resent = await o.ui.webhooks.resend({ deliveryId: probe.deliveryId });
    for (let i = 0; i < 4; i++) {
      await app.db
        .update(deliveries)
        .set({ nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(deliveries.id, resent.deliveryId));
      await dispatch();
    }
    expect((await o.ui.webhooks.delivery({ deliveryId: resent.deliveryId })).attemptLog).toHaveLength(4);
    // A resend is a new delivery of the same event: a new delivery id, the same event id.
    const sent = (id: string) =>
      receiver.at(target.path).filter((r) => r.headers['x-service-delivery'] === id);
    const eventIds = new Set(
      [...sent(probe.deliveryId), ...sent(resent.deliveryId)].map((r) => r.headers['x-service-event-id']),
    );
    expect([...eventIds]).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect((await o.ui.webhooks.get({ id: endpoint.id })).active).toBe(true);
    // The real event's fourth failure still deactivates.
    for (let i = 0; i < 3; i++) {
      await app.db
        .update(deliveries)
        .set({ nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(deliveries.id, real.deliveryId));
      await dispatch();
    }
    expect((await o.ui.webhooks.get({ id: endpoint.id })).deactivatedBy).toMatchObject({
      deliveryId: real.deliveryId,
    });
  });

  it('succeeded on a 2xx; cancelled (reason endpoint_deactivated) for the other pending deliveries when the endpoint is deactivated', async () => {
    const o = await owner();
    const target = receiver.path('cancel', () => ({ status: 500 }));
    const { endpoint } = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    const first = await meetingStarted(o, endpoint.id);
    await dispatch(); // first: retrying
    const second = await meetingStarted(o, endpoint.id);
    await dispatch(); // second: retrying too
    // Only the first one's retries are made due: its fourth failure deactivates the endpoint.
    for (let i = 0; i < 3; i++) {
      await app.db
        .update(deliveries)
        .set({ nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(deliveries.id, first.deliveryId));
      await dispatch();
    }
    const byId = new Map((await o.ui.webhooks.deliveries({ id: endpoint.id })).items.map((d) => [d.id, d]));
    expect(byId.get(first.deliveryId)).toMatchObject({ state: 'failed', attempts: 4 });
    expect(byId.get(second.deliveryId)).toMatchObject({
      state: 'cancelled',
      attempts: 1,
      cancelledReason: 'endpoint_deactivated',
      nextAttemptAt: null,
    });
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, state: 'cancelled' })).items).toHaveLength(1);

    const ok = receiver.path('ok');
    const { endpoint: good } = await o.ui.webhooks.create({ url: ok.url, events: ['summary.ready'] });
    await o.ui.webhooks.sendTest({ id: good.id });
    await dispatch();
    expect(await states(o.ui, good.id)).toEqual(['succeeded']);
  });

  it('deleting an endpoint while an attempt is in flight cancels the delivery: the attempt is not recorded, nothing is retried, the deliveries are gone', async () => {
    const o = await owner();
    let arrived = false;
    const slow = receiver.path('inflight', () => {
      arrived = true;
      return { status: 500, delayMs: 700 };
    });
    const { endpoint } = await o.ui.webhooks.create({ url: slow.url, events: ['meeting.started'] });
    const { deliveryId } = await o.ui.webhooks.sendTest({ id: endpoint.id });
    const run = dispatch();
    // Every 20 ms: the delete must land within the receiver's 700 ms, while the attempt is in flight.
    await vi.waitFor(() => expect(arrived, 'the attempt reached the receiver').toBe(true), {
      timeout: 10_000,
      interval: 20,
    });
    await o.ui.webhooks.delete({ id: endpoint.id });
    await run;
    expect(await app.db.select().from(deliveries).where(eq(deliveries.id, deliveryId))).toEqual([]);
    const [attempts] = await queryRows<{ n: number | string }>(
      app.db,
      sql`select count(*) as n from delivery_attempts where delivery_id = ${deliveryId}`,
    );
    expect(Number(attempts!.n)).toBe(0);
    expect(await dispatch()).toMatchObject({
      deliveries_succeeded: 0,
      deliveries_retried: 0,
      deliveries_failed: 0,
    });
    expect(receiver.at(slow.path)).toHaveLength(1);
  });

  it('filters by event and time, lookup by delivery id and by note id; a lookup that is not an id finds nothing', async () => {
    const o = await owner();
    const target = receiver.path('filters');
    const { endpoint } = await o.ui.webhooks.create({
      url: target.url,
      events: ['meeting.started', 'meeting.transcribed', 'summary.ready'],
    });
    const noteId = await app.recordNote(o.key, {
      title: 'Filters',
      segments: [{ speaker: 'Ana', content: 'Filters work.', start_time: 0, end_time: 1 }],
    });
    const test = await o.ui.webhooks.sendTest({ id: endpoint.id, event: 'summary.ready' });
    await dispatch();
    const all = (await o.ui.webhooks.deliveries({ id: endpoint.id })).items;
    expect(all.map((d) => d.event).sort()).toEqual([
      'meeting.started',
      'meeting.transcribed',
      'summary.ready',
    ]);
    const byNote = (await o.ui.webhooks.deliveries({ id: endpoint.id, lookup: noteId })).items;
    expect(byNote.map((d) => d.event).sort()).toEqual(['meeting.started', 'meeting.transcribed']);
    expect(byNote.every((d) => d.noteId === noteId && !d.test)).toBe(true);
    const byId = (await o.ui.webhooks.deliveries({ id: endpoint.id, lookup: test.deliveryId.toUpperCase() }))
      .items;
    expect(byId.map((d) => d.id)).toEqual([test.deliveryId]);
    expect(byId[0]!.test).toBe(true);
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, lookup: "x' or 1=1 --" })).items).toEqual([]);
    expect(
      (await o.ui.webhooks.deliveries({ id: endpoint.id, event: 'summary.ready' })).items.map((d) => d.id),
    ).toEqual([test.deliveryId]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, since: future })).items).toEqual([]);
    expect((await o.ui.webhooks.deliveries({ id: endpoint.id, until: future })).items).toHaveLength(3);
    // Paging: newest first, one at a time, no repeats.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } = await o.ui.webhooks.deliveries({
        id: endpoint.id,
        limit: 1,
        cursor,
      });
      seen.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((d) => d.id));
  });

  it('a test event of each type has that event’s payload shape', async () => {
    const o = await owner();
    const target = receiver.path('shapes');
    const { endpoint } = await o.ui.webhooks.create({
      url: target.url,
      events: ['meeting.started', 'meeting.completed', 'summary.ready'],
    });
    for (const event of ['meeting.started', 'meeting.completed', 'summary.ready'] as const)
      await o.ui.webhooks.sendTest({ id: endpoint.id, event });
    await dispatch();
    const bodies = receiver.at(target.path).map((r) => JSON.parse(r.body));
    const started = bodies.find((b) => b.event === 'meeting.started');
    expect(started.data).toMatchObject({
      transcript: [],
      ended_at: null,
      duration_seconds: null,
      summary: null,
    });
    const completed = bodies.find((b) => b.event === 'meeting.completed');
    expect(completed.data.transcript.length).toBeGreaterThan(0);
    expect(completed.data.summary).toBeNull();
    expect(typeof completed.data.ended_at).toBe('string');
    const summary = bodies.find((b) => b.event === 'summary.ready');
    expect(summary.data.summary).toMatchObject({
      decisions: expect.any(Array),
      action_items: expect.any(Array),
    });
  });
});

describe('edit an endpoint', () => {
  it('URL, events and description change in place; id and history stay; a private or taken URL is refused and changes nothing', async () => {
    const o = await owner();
    const before = receiver.path('before');
    const after = receiver.path('after');
    const { endpoint } = await o.ui.webhooks.create({
      url: before.url,
      events: ['meeting.started'],
      description: 'CRM sync',
    });
    const first = await o.ui.webhooks.sendTest({ id: endpoint.id });
    await dispatch();
    const updated = await o.ui.webhooks.update({
      id: endpoint.id,
      url: after.url,
      events: ['summary.ready', 'summary.ready'],
      description: '  Billing  ',
    });
    expect(updated).toMatchObject({
      id: endpoint.id,
      url: after.url,
      events: ['summary.ready'],
      description: 'Billing',
    });
    await o.ui.webhooks.sendTest({ id: endpoint.id });
    await dispatch();
    expect(receiver.at(before.path)).toHaveLength(1);
    expect(receiver.at(after.path).map((r) => JSON.parse(r.body).event)).toEqual(['summary.ready']);
    const history = (await o.ui.webhooks.deliveries({ id: endpoint.id })).items;
    expect(history).toHaveLength(2);
    expect(history.at(-1)!.id).toBe(first.deliveryId);

    // Another endpoint's URL: conflict. A URL the service refuses: bad request (strict app below).
    const { endpoint: other } = await o.ui.webhooks.create({ url: before.url, events: ['meeting.started'] });
    await expect(o.ui.webhooks.update({ id: other.id, url: after.url })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(o.ui.webhooks.update({ id: other.id, events: [] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(await o.ui.webhooks.get({ id: other.id })).toMatchObject({
      url: before.url,
      events: ['meeting.started'],
    });
    // Another account cannot edit it.
    const stranger = await owner();
    await expect(stranger.ui.webhooks.update({ id: endpoint.id, description: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('with the production URL rules an edit to a private address is refused', async () => {
    const strict = await startTestApp({
      services: {},
      env: {},
    });
    try {
      const { account } = await strict.createAccount();
      const caller = createCaller({
        db: strict.db,
        services: strict.services,
        accountId: account.id,
        clientAddress: null,
      });
      // The endpoint is put in place directly (its https URL would need DNS); the edit is what is tested.
      const id = randomUUID();
      await strict.db.insert(webhookEndpoints).values({
        id,
        accountId: account.id,
        url: 'https://hooks.example.com/a',
        events: ['meeting.started'],
        form: 'A',
        secret: strict.services.webhooks.secrets.seal('whsec_x'),
        activeSince: new Date(),
        createdAt: new Date(),
      });
      for (const url of [
        'https://127.0.0.1/hook',
        'http://127.0.0.1/a',
        'https://[::1]/x',
        'https://10.0.0.1/',
        'https://169.254.169.254/',
      ])
        await expect(caller.webhooks.update({ id, url })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect((await caller.webhooks.get({ id })).url).toBe('https://hooks.example.com/a');
    } finally {
      await strict.close();
    }
  });
});

const verifyStripe = (r: Received, secret: string) =>
  stripe.webhooks.constructEvent(r.body, String(r.headers['x-service-signature']), secret);
const verifyStandard = (r: Received, secret: string) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

describe('rotation with an overlap, Standard Webhooks headers', () => {
  for (const form of ['A', 'B'] as const) {
    it(`with a Form ${form} secret, Stripe's and standardwebhooks' verifiers accept old and new during the overlap, only the new after; no delivery lost across the switch`, async () => {
      const o = await owner();
      const target = receiver.path(`rotate-${form}`);
      const created = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'], form });
      const oldSecret = created.secret;
      await o.ui.webhooks.sendTest({ id: created.endpoint.id });
      await dispatch();
      const [before] = receiver.at(target.path);
      expect(before!.headers['webhook-id']).toBe(before!.headers['x-service-delivery']);
      expect(verifyStripe(before!, oldSecret)).toBeTruthy();
      expect(verifyStandard(before!, oldSecret)).toBeTruthy();

      const rotated = await o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 3600 });
      const newSecret = rotated.secret;
      expect(newSecret).not.toBe(oldSecret);
      expect(newSecret).toMatch(form === 'A' ? /^whsec_[A-Za-z0-9+/]{43}=$/ : /^[0-9a-f]{64}$/);
      expect(Date.parse(rotated.endpoint.previousSecretExpiresAt!)).toBeGreaterThan(Date.now() + 3_500_000);
      // Every delivery during the overlap: both signatures; a receiver with either secret accepts it.
      for (let i = 0; i < 3; i++) await o.ui.webhooks.sendTest({ id: created.endpoint.id });
      await dispatch();
      const during = receiver.at(target.path).slice(1);
      expect(during).toHaveLength(3);
      for (const r of during) {
        expect(String(r.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
        expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
        for (const secret of [oldSecret, newSecret]) {
          expect(verifyStripe(r, secret)).toBeTruthy();
          expect(verifyStandard(r, secret)).toBeTruthy();
        }
      }

      // The overlap ends: only the new secret signs.
      await app.db
        .update(webhookEndpoints)
        .set({ previousSecretExpiresAt: new Date(Date.now() - 1) })
        .where(eq(webhookEndpoints.id, created.endpoint.id));
      await o.ui.webhooks.sendTest({ id: created.endpoint.id });
      await dispatch();
      const afterOverlap = receiver.at(target.path).at(-1)!;
      expect(verifyStripe(afterOverlap, newSecret)).toBeTruthy();
      expect(verifyStandard(afterOverlap, newSecret)).toBeTruthy();
      expect(() => verifyStripe(afterOverlap, oldSecret)).toThrow();
      expect(() => verifyStandard(afterOverlap, oldSecret)).toThrow();
      expect((await o.ui.webhooks.get({ id: created.endpoint.id })).previousSecretExpiresAt).toBeNull();
      // Every delivery made across the switch arrived and succeeded.
      expect(await states(o.ui, created.endpoint.id)).toEqual(Array(5).fill('succeeded'));
    });
  }

  it('overlap 0 replaces the secret at once; a second rotation during an overlap keeps only the secret it replaces; the overlap is bounded', async () => {
    const o = await owner();
    const target = receiver.path('rotate-now');
    const created = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    const now = await o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 0 });
    expect(now.endpoint.previousSecretExpiresAt).toBeNull();
    const second = await o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 60 });
    const third = await o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 60 });
    await o.ui.webhooks.sendTest({ id: created.endpoint.id });
    await dispatch();
    const r = receiver.at(target.path).at(-1)!;
    expect(verifyStripe(r, third.secret)).toBeTruthy();
    expect(verifyStripe(r, second.secret)).toBeTruthy();
    for (const gone of [created.secret, now.secret]) expect(() => verifyStripe(r, gone)).toThrow();
    await expect(
      o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 8 * 24 * 3600 }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: -1 }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('secrets are stored sealed, never as shown; the rotated-out one too', async () => {
    const o = await owner();
    const created = await o.ui.webhooks.create({
      url: receiver.path('sealed').url,
      events: ['meeting.started'],
    });
    const rotated = await o.ui.webhooks.rotateSecret({ id: created.endpoint.id, overlapSeconds: 60 });
    const [row] = await app.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.endpoint.id));
    const stored = JSON.stringify(row);
    for (const secret of [created.secret, rotated.secret]) expect(stored).not.toContain(secret);
    expect(row!.secret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(row!.previousSecret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(app.services.webhooks.secrets.open(row!.secret)).toBe(rotated.secret);
    expect(app.services.webhooks.secrets.open(row!.previousSecret!)).toBe(created.secret);
  });
});

describe('recover', () => {
  it('recover queues exactly the failed and cancelled deliveries since the time given, once each; events of the inactive period stay unsent', async () => {
    const o = await owner();
    let mode: 'fail' | 'ok' = 'fail';
    const target = receiver.path('recover', () => ({ status: mode === 'fail' ? 500 : 200 }));
    const { endpoint } = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    // An old failure (before `since`): a delivery that failed long ago.
    const old = await meetingStarted(o, endpoint.id);
    await app.db
      .update(deliveries)
      .set({ createdAt: new Date(Date.now() - 3 * 3600_000) })
      .where(eq(deliveries.id, old.deliveryId));
    await dispatch();
    const since = new Date(Date.now() - 3600_000);
    const a = await meetingStarted(o, endpoint.id);
    const b = await meetingStarted(o, endpoint.id);
    await dispatch();
    // a fails for good (deactivating the endpoint, b and the old one cancelled).
    for (let i = 0; i < 3; i++) {
      await app.db
        .update(deliveries)
        .set({ nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(deliveries.id, a.deliveryId));
      await dispatch();
    }
    expect((await o.ui.webhooks.get({ id: endpoint.id })).active).toBe(false);
    // Inactive: recover is refused; a meeting now is never queued.
    await expect(
      o.ui.webhooks.recover({ id: endpoint.id, since: since.toISOString() }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const inactiveMeeting = await app.recordNote(o.key, {
      title: 'While inactive',
      segments: [{ speaker: 'Ana', content: 'Nobody hears this.', start_time: 0, end_time: 1 }],
    });

    mode = 'ok';
    await o.ui.webhooks.reenable({ id: endpoint.id });
    const received = receiver.at(target.path).length;
    const result = await o.ui.webhooks.recover({ id: endpoint.id, since: since.toISOString() });
    expect(result).toEqual({ queued: 2 });
    await dispatch();
    const resent = receiver.at(target.path).slice(received);
    expect(resent).toHaveLength(2);
    const sentIds = new Set(resent.map((r) => JSON.parse(r.body).data.id));
    const payloadOf = async (id: string) =>
      JSON.parse((await o.ui.webhooks.delivery({ deliveryId: id })).payload).data.id;
    expect(sentIds).toEqual(new Set([await payloadOf(a.deliveryId), await payloadOf(b.deliveryId)]));
    expect(resent.every((r) => JSON.parse(r.body).data.id !== inactiveMeeting)).toBe(true);
    // The originals name their new deliveries; the old one (before `since`) was left alone.
    const items = (await o.ui.webhooks.deliveries({ id: endpoint.id })).items;
    const byId = new Map(items.map((d) => [d.id, d]));
    expect(byId.get(a.deliveryId)!.resentAs).toEqual(expect.any(String));
    expect(byId.get(b.deliveryId)!.resentAs).toEqual(expect.any(String));
    expect(byId.get(old.deliveryId)!.resentAs).toBeNull();
    expect(byId.get(byId.get(a.deliveryId)!.resentAs!)!.state).toBe('succeeded');
    // A second recover queues nothing more.
    expect(await o.ui.webhooks.recover({ id: endpoint.id, since: since.toISOString() })).toEqual({
      queued: 0,
    });
    await expect(
      o.ui.webhooks.recover({ id: endpoint.id, since: new Date(Date.now() + 60_000).toISOString() }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // A time the database cannot store is a validation error, not a 500 (found by the
    // hostile-input property below).
    for (const since of ['0000-01-01T00:00:00Z', '0099-12-31T23:59:59Z'])
      await expect(o.ui.webhooks.recover({ id: endpoint.id, since })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    await expect(
      o.ui.webhooks.deliveries({ id: endpoint.id, since: '0000-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      o.ui.webhooks.deliveries({ id: endpoint.id, until: '0000-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('health', () => {
  it('success rate and attempt counts over 24 h and 7 days, hourly and daily buckets, and the last error, on the list and the endpoint', async () => {
    const o = await owner();
    let n = 0;
    const target = receiver.path('health', () => ({ status: ++n % 2 === 0 ? 200 : 500 }));
    const { endpoint } = await o.ui.webhooks.create({ url: target.url, events: ['meeting.started'] });
    const empty = await o.ui.webhooks.health({ id: endpoint.id });
    expect(empty.day).toEqual({ attempts: 0, succeeded: 0, successRate: null });
    expect(empty.hourly).toHaveLength(24);
    expect(empty.daily).toHaveLength(7);
    for (let i = 0; i < 2; i++) await o.ui.webhooks.sendTest({ id: endpoint.id });
    await dispatch(); // attempt 1 of each: 500, 200
    const health = await o.ui.webhooks.health({ id: endpoint.id });
    expect(health.day).toEqual({ attempts: 2, succeeded: 1, successRate: 0.5 });
    expect(health.week).toEqual(health.day);
    expect(health.hourly.at(-1)).toMatchObject({ succeeded: 1, failed: 1 });
    expect(health.daily.at(-1)).toMatchObject({ succeeded: 1, failed: 1 });
    expect(health.lastError).toMatchObject({ statusCode: 500 });
    const [listed] = (await o.ui.webhooks.list()).filter((e) => e.id === endpoint.id);
    expect(listed!.health).toEqual({ day: health.day, week: health.week, lastError: health.lastError });
  });
});

describe('hostile input to the new settings procedures', () => {
  it('random inputs to update, rotateSecret, recover, sendTest, deliveries, delivery and health (signed in, over HTTP): never a 5xx, rejected changes change nothing', async () => {
    // Every name resolves to 127.0.0.1 here: a random "URL" never reaches a real DNS server.
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const hostile = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    hostile.services.webhooks = { ...hostile.services.webhooks, resolve };
    hostile.services.webhooks.sender = createWebhookSender({ timeoutMs: 500, allowPrivate: true, resolve });
    try {
      await hostileInput(hostile);
    } finally {
      await hostile.close();
    }
  }, 180_000);
});

async function hostileInput(app: TestApp) {
  {
    const email = `hostile-${Date.now()}@example.com`;
    const signUp = await new BrowserSession(app.url, { 'x-forwarded-for': '198.51.100.77' }).mutate(
      'account.signUp',
      { email, password: 'quiet-harbor-lantern-71' },
    );
    expect(signUp.status).toBe(200);
    const session = new BrowserSession(app.url, { 'x-forwarded-for': '198.51.100.78' });
    expect((await session.signIn(email, 'quiet-harbor-lantern-71')).status).toBe(200);
    const created = await session.mutate('webhooks.create', {
      url: receiver.path('hostile').url,
      events: ['meeting.started'],
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.result.data.endpoint.id as string;
    const [before] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));

    const anything = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant('x'.repeat(5000)),
      fc.constantFrom(
        '1e400',
        '-0',
        '2026-13-45T99:99:99Z',
        '9999-12-31T23:59:59.999Z',
        '0000-01-01T00:00:00Z',
      ),
      fc.constantFrom("' or 1=1 --", '00000000-0000-0000-0000-000000000000', '%00', '\u0000', '__proto__'),
      fc.array(fc.string(), { maxLength: 5 }),
      fc.constantFrom(['meeting.started'], ['nope'], [], Array(50).fill('summary.ready')),
    );
    const input = fc.record(
      {
        id: fc.oneof(fc.constant(id), anything),
        deliveryId: anything,
        url: anything,
        events: anything,
        description: anything,
        overlapSeconds: anything,
        since: anything,
        until: anything,
        state: anything,
        event: anything,
        lookup: anything,
        limit: anything,
        cursor: anything,
        __proto__: anything,
      },
      { requiredKeys: [] },
    );
    const procedure = fc.constantFrom(
      ['mutate', 'webhooks.update'],
      ['mutate', 'webhooks.rotateSecret'],
      ['mutate', 'webhooks.recover'],
      ['mutate', 'webhooks.sendTest'],
      ['query', 'webhooks.deliveries'],
      ['query', 'webhooks.delivery'],
      ['query', 'webhooks.health'],
    );
    await fc.assert(
      fc.asyncProperty(procedure, input, async ([kind, path], body) => {
        const res = kind === 'mutate' ? await session.mutate(path!, body) : await session.query(path!, body);
        expect(res.status, `${path} ${JSON.stringify(body)} → ${res.text}`).toBeLessThan(500);
        // A query too long for a request line is refused by Node's HTTP parser itself (431).
        if (res.status >= 400 && res.status !== 431) {
          expect(res.json?.error?.message, res.text).toEqual(expect.any(String));
          expect(res.text).not.toMatch(/at .*\.ts:\d+|stack/i);
        }
      }),
      { numRuns: 120 },
    );
    // Rejected edits changed nothing; accepted ones may have changed url/description/events.
    const [after] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(after!.id).toBe(before!.id);
    expect(after!.events.length).toBeGreaterThan(0);
    expect(after!.secret).toMatch(/^enc:v1:/);
  }
}
