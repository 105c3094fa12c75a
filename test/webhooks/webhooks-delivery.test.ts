import { createHmac, randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { and, count, eq, inArray, type SQL } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliveries, deliveryAttempts, emails, events } from '../../server/db/schema';
import { parseEnv } from '../../server/env';
import { runDueWork } from '../../server/worker/run-due-work';
import { createServices } from '../../server/services';
import { claimDeliveries } from '../../server/webhooks/delivery-attempts';
import { reenableEndpointOrThrow } from '../../server/webhooks/endpoints';
import type { Resolver } from '../../server/webhooks/url-guard';
import { insertDueDeliveries } from '../support/due-deliveries';
import { startSmtpCapture } from '../support/smtp-capture';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// Webhook deliveries: payloads, signatures and headers, retries and deactivation, URL checks at
// delivery time, and the background work that sends them (docs/rules.md#event-payloads,
// docs/rules.md#signatures-and-headers, docs/rules.md#delivery-retries-and-deactivation).
//
// `app` allows private URLs (receivers run on 127.0.0.1), retries after 1, 2 and 1 seconds,
// times out after 500 ms, sends email through a real SMTP server, and runs the worker.
// `quiet` is the same without a worker: the tests there run the dispatcher themselves
// (runDueWork returns once nothing is due), and make a retry due by moving its next_attempt_at
// instead of waiting out the delay, so "no further attempt" is checked on a settled system.
// `strict` has the production URL rules with an injected resolver (URLs are checked again at
// delivery time).

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNATURE = /^t=(\d+),v1=([0-9a-f]{64})$/;
const stripe = new Stripe('sk_test_x');

// ---------------------------------------------------------------------------------------------

/** How long a test waits for the worker's deliveries (retries included), and how often it looks. */
const WAIT = { timeout: 30_000, interval: 50 };

function parseSignature(header: string | string[] | undefined): { t: number; v1: string } {
  const m = SIGNATURE.exec(String(header));
  if (!m) throw new Error(`malformed X-Service-Signature: ${String(header)}`);
  return { t: Number(m[1]), v1: m[2]! };
}

const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

let receiver: Receiver;
// A real SMTP server capturing what the app sends.
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let app: TestApp;
let quiet: TestApp;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  smtp = await startSmtpCapture();
  app = await startTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '1,2,1',
      WEBHOOK_TIMEOUT_MS: '500',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_FROM: 'Meeting Notes <no-reply@example.com>',
    },
    worker: true,
  });
  quiet = await startTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '1,2,1',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_FROM: 'Meeting Notes <no-reply@example.com>',
    },
  });
});

afterAll(async () => {
  await app?.close();
  await quiet?.close();
  await receiver?.close();
  await smtp?.close();
});

async function createEndpoint(a: TestApp, key: string, url: string, eventNames?: string[], form?: 'A' | 'B') {
  const res = await a.request('/v1/webhooks', {
    method: 'POST',
    key,
    ...(form && { form }),
    json: { url, ...(eventNames && { events: eventNames }) },
  });
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${res.text}`);
  return res.json as {
    id: string;
    url: string;
    events: string[];
    secret: string;
    active: boolean;
    created_at: string;
  };
}

async function startMeeting(
  a: TestApp,
  key: string,
  json: Record<string, unknown> = { title: 'Weekly sync', platform: 'zoom' },
) {
  const res = await a.request('/api/recorder/meetings', { method: 'POST', key, json });
  if (res.status !== 201) throw new Error(`create meeting: ${res.status} ${res.text}`);
  return res.json.id as string;
}

async function storeTranscript(a: TestApp, key: string, id: string, json: Record<string, unknown> = {}) {
  const res = await a.request(`/api/recorder/meetings/${id}/transcript`, {
    method: 'POST',
    key,
    json: {
      segments: [{ speaker: 'Ana', content: 'Hello.', start_time: 0, end_time: 1 }],
      generate_summary: false,
      ...json,
    },
  });
  if (res.status !== 200) throw new Error(`store transcript: ${res.status} ${res.text}`);
}

async function deliveryRows(a: TestApp, endpointId: string) {
  return a.db.select().from(deliveries).where(eq(deliveries.endpointId, endpointId));
}

async function attemptCount(a: TestApp, endpointId: string): Promise<number> {
  const [row] = await a.db
    .select({ n: count() })
    .from(deliveryAttempts)
    .where(eq(deliveryAttempts.endpointId, endpointId));
  return row?.n ?? 0;
}

/** All deliveries of these endpoints are settled (none pending). */
async function settled(a: TestApp, endpointIds: string[]): Promise<boolean> {
  const rows = await a.db
    .select({ status: deliveries.status })
    .from(deliveries)
    .where(inArray(deliveries.endpointId, endpointIds));
  return rows.every((r) => r.status !== 'pending');
}

/** One dispatcher run: attempts every due delivery and job, and returns once none is left. */
const dispatch = (a: TestApp) => runDueWork(a.db, a.services, { budgetMs: 30_000 });

/** A dispatcher run that found nothing to attempt. */
const IDLE = { deliveries_succeeded: 0, deliveries_retried: 0, deliveries_failed: 0 };

/** Makes a pending delivery due now: its retry delay has passed, as far as any dispatcher can tell. */
async function makeDue(a: TestApp, where: SQL | undefined) {
  await a.db
    .update(deliveries)
    .set({ nextAttemptAt: new Date(Date.now() - 1000) })
    .where(and(eq(deliveries.status, 'pending'), where));
}

async function deliveryLog(a: TestApp, key: string, endpointId: string): Promise<any[]> {
  const res = await a.request(`/v1/webhooks/${endpointId}/deliveries?limit=100`, { key, form: 'B' });
  expect(res.status).toBe(200);
  return res.json.data;
}

describe('payloads', () => {
  it('each event reaches its subscribers with the exact compact envelope; the transcribed/completed alias gives one delivery; full platform enum and null title kept', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const all = receiver.path('all');
    const completed = receiver.path('completed');
    const started = receiver.path('started');
    const summary = receiver.path('summary');
    const eAll = await createEndpoint(app, key, all.url, [
      'meeting.started',
      'meeting.transcribed',
      'meeting.completed',
      'summary.ready',
    ]);
    const eCompleted = await createEndpoint(app, key, completed.url, ['meeting.completed']);
    const eStarted = await createEndpoint(app, key, started.url, ['meeting.started']);
    const eSummary = await createEndpoint(app, key, summary.url, ['summary.ready']);
    const endpointIds = [eAll.id, eCompleted.id, eStarted.id, eSummary.id];
    const secrets = new Map(
      [all, completed, started, summary].map((p, i) => [
        p.path,
        [eAll, eCompleted, eStarted, eSummary][i]!.secret,
      ]),
    );

    const startedAt = '2026-11-01T09:00:00.000Z';
    const id = await startMeeting(app, key, { title: null, platform: 'microphone', started_at: startedAt });
    await vi.waitFor(() => {
      expect(receiver.at(all.path), 'the endpoint of every event').toHaveLength(1);
      expect(receiver.at(started.path), 'the meeting.started endpoint').toHaveLength(1);
    }, WAIT);

    await storeTranscript(app, key, id, {
      ended_at: '2026-11-01T09:30:00.000Z',
      duration_seconds: 1800,
      segments: [
        { speaker: 'Ana', content: 'Shall we start?', start_time: 0, end_time: 2.5 },
        { speaker: 'Ben', content: 'Yes, the release is on track.', start_time: 2.5 },
      ],
    });
    await vi.waitFor(() => {
      expect(receiver.at(all.path), 'the endpoint of every event').toHaveLength(2);
      expect(receiver.at(completed.path), 'the meeting.completed endpoint').toHaveLength(1);
    }, WAIT);

    const summaryObject = {
      context: 'Release planning.',
      decisions: ['Ship on Friday'],
      action_items: [{ task: 'Update the checklist', owner: 'Ben', deadline: 'Friday' }],
      participants: ['Ana', 'Ben'],
      next_step: 'Release review',
      budget_mentioned: null,
      sentiment: 'positive',
    };
    const stored = await app.request(`/api/recorder/meetings/${id}/summary`, {
      method: 'POST',
      key,
      json: { summary: summaryObject },
    });
    expect(stored.status).toBe(200);
    await vi.waitFor(() => {
      expect(receiver.at(all.path), 'the endpoint of every event').toHaveLength(3);
      expect(receiver.at(summary.path), 'the summary.ready endpoint').toHaveLength(1);
    }, WAIT);
    await vi.waitFor(async () => expect(await settled(app, endpointIds), 'all settled').toBe(true), WAIT);

    const transcript = [
      { sequence: 1, speaker: 'Ana', content: 'Shall we start?', start_time: 0, end_time: 2.5 },
      {
        sequence: 2,
        speaker: 'Ben',
        content: 'Yes, the release is on track.',
        start_time: 2.5,
        end_time: null,
      },
    ];
    const base = { id, title: null, platform: 'microphone', started_at: startedAt };
    const startedData = { ...base, duration_seconds: null, ended_at: null, transcript: [], summary: null };
    const transcribedData = {
      ...base,
      duration_seconds: 1800,
      ended_at: '2026-11-01T09:30:00.000Z',
      transcript,
      summary: null,
    };
    const summaryData = { ...transcribedData, summary: summaryObject };
    const envelope = (event: string, data: unknown) => ({
      event,
      created_at: expect.stringMatching(TS),
      data,
    });

    const bodies = (path: string) => receiver.at(path).map((r) => JSON.parse(r.body));
    expect(bodies(all.path)).toEqual([
      envelope('meeting.started', startedData),
      envelope('meeting.transcribed', transcribedData),
      envelope('summary.ready', summaryData),
    ]);
    expect(bodies(started.path)).toEqual([envelope('meeting.started', startedData)]);
    expect(bodies(completed.path)).toEqual([envelope('meeting.completed', transcribedData)]);
    expect(bodies(summary.path)).toEqual([envelope('summary.ready', summaryData)]);
    // Nothing more was queued than what arrived: one delivery per (endpoint, moment).
    expect((await deliveryRows(app, eAll.id)).map((d) => d.event).sort()).toEqual([
      'meeting.started',
      'meeting.transcribed',
      'summary.ready',
    ]);
    expect((await deliveryRows(app, eCompleted.id)).map((d) => d.event)).toEqual(['meeting.completed']);
    expect((await deliveryRows(app, eStarted.id)).map((d) => d.event)).toEqual(['meeting.started']);
    expect((await deliveryRows(app, eSummary.id)).map((d) => d.event)).toEqual(['summary.ready']);

    for (const r of [all, completed, started, summary].flatMap((p) => receiver.at(p.path))) {
      const parsed = JSON.parse(r.body);
      // Compact JSON, keys in the envelope's order: event, created_at, data.
      expect(r.body).toBe(JSON.stringify(parsed));
      expect(r.body).not.toMatch(/":\s|,\s"/);
      expect(Object.keys(parsed)).toEqual(['event', 'created_at', 'data']);
      expect(Object.keys(parsed.data)).toEqual([
        'id',
        'title',
        'platform',
        'duration_seconds',
        'started_at',
        'ended_at',
        'transcript',
        'summary',
      ]);
      expect(r.headers['x-service-event']).toBe(parsed.event);
      // The raw body is exactly what the signature signs.
      const { t, v1 } = parseSignature(r.headers['x-service-signature']);
      expect(v1).toBe(hmac(secrets.get(r.path)!, t, r.body));
    }
  });

  it('an endpoint not subscribed to an event gets nothing for it', async () => {
    const { key } = await app.createAccount();
    const quietPath = receiver.path('unsubscribed');
    const witness = receiver.path('witness');
    const eQuiet = await createEndpoint(app, key, quietPath.url, ['summary.ready']);
    const eWitness = await createEndpoint(app, key, witness.url, ['meeting.started', 'meeting.completed']);
    await app.recordNote(key);
    await vi.waitFor(() => expect(receiver.at(witness.path), 'the witness').toHaveLength(2), WAIT);
    await vi.waitFor(
      async () => expect(await settled(app, [eWitness.id, eQuiet.id]), 'all settled').toBe(true),
      WAIT,
    );
    expect(receiver.at(quietPath.path)).toEqual([]);
    expect(await deliveryRows(app, eQuiet.id)).toEqual([]);
  });
});

describe('signing and headers', () => {
  it('every delivery carries the headers and a Stripe-verifiable signature, for a Form A (whsec_) and a Form B (hex) secret; a tampered body fails', async () => {
    const { key } = await app.createAccount({ form: 'A' });
    const a = receiver.path('sign-a');
    const b = receiver.path('sign-b');
    const endpointA = await createEndpoint(app, key, a.url, ['meeting.started']);
    const endpointB = await createEndpoint(app, key, b.url, ['meeting.started'], 'B');
    expect(endpointA.secret).toMatch(/^whsec_/);
    expect(endpointB.secret).toMatch(/^[0-9a-f]{64}$/);
    const id = await startMeeting(app, key);
    await vi.waitFor(() => {
      expect(receiver.at(a.path), 'the Form A endpoint').toHaveLength(1);
      expect(receiver.at(b.path), 'the Form B endpoint').toHaveLength(1);
    }, WAIT);

    for (const [path, endpoint, other] of [
      [a.path, endpointA, endpointB],
      [b.path, endpointB, endpointA],
    ] as const) {
      const [r] = receiver.at(path);
      const sig = String(r!.headers['x-service-signature']);
      const { t } = parseSignature(sig);
      expect(r!.headers['x-service-timestamp']).toBe(String(t));
      expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(300); // fresh: within the 5 minutes a receiver allows
      expect(r!.headers['x-service-event']).toBe('meeting.started');
      expect(r!.headers['x-service-delivery']).toMatch(UUID);
      expect(r!.headers['content-type']).toMatch(/^application\/json(;|$)/);
      expect(r!.headers['user-agent']).toEqual(expect.stringMatching(/\S/));
      const [row] = await deliveryRows(app, endpoint.id);
      expect(r!.headers['x-service-delivery']).toBe(row!.id);
      // The event's own id: one event, so the same on both endpoints' deliveries.
      expect(r!.headers['x-service-event-id']).toBe(row!.eventId);
      expect(r!.headers['x-service-event-id']).toBe(
        receiver.at(other === endpointB ? b.path : a.path)[0]!.headers['x-service-event-id'],
      );

      const verified = stripe.webhooks.constructEvent(r!.body, sig, endpoint.secret);
      expect(verified).toEqual(JSON.parse(r!.body));
      expect((verified as any).data.id).toBe(id);

      const tampered = r!.body.replace('"meeting.started"', '"meeting.Started"');
      expect(tampered).not.toBe(r!.body);
      expect(() => stripe.webhooks.constructEvent(tampered, sig, endpoint.secret)).toThrow();
      expect(() => stripe.webhooks.constructEvent(`${r!.body} `, sig, endpoint.secret)).toThrow();
      expect(() => stripe.webhooks.constructEvent(r!.body, sig, other.secret)).toThrow();
    }
  });
});

describe('retries', () => {
  it('500, 500, 200 gives exactly three attempts with the same bytes and delivery id, re-signed, after the configured delays, logged as attempts 1..3', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const target = receiver.path('retry', (n) => ({ status: n <= 2 ? 500 : 200 }));
    const endpoint = await createEndpoint(app, key, target.url, ['meeting.started']);
    const meetingId = await startMeeting(app, key);
    await vi.waitFor(() => expect(receiver.at(target.path), 'attempts').toHaveLength(3), WAIT);
    await vi.waitFor(async () => expect(await settled(app, [endpoint.id]), 'settled').toBe(true), WAIT);

    const got = receiver.at(target.path);
    expect(got).toHaveLength(3);
    const [row] = await deliveryRows(app, endpoint.id);
    expect(row).toMatchObject({ status: 'succeeded', attemptsMade: 3 });
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(got.map((r) => r.headers['x-service-delivery'])).toEqual([row!.id, row!.id, row!.id]);
    expect(got.map((r) => r.headers['x-service-event-id'])).toEqual([
      row!.eventId,
      row!.eventId,
      row!.eventId,
    ]);
    const ts = got.map((r) => parseSignature(r.headers['x-service-signature']).t);
    for (const [i, r] of got.entries()) {
      expect(parseSignature(r.headers['x-service-signature']).v1).toBe(hmac(endpoint.secret, ts[i]!, r.body));
      expect(r.headers['x-service-timestamp']).toBe(String(ts[i]));
    }
    expect(ts[1]!).toBeGreaterThan(ts[0]!);
    expect(ts[2]!).toBeGreaterThan(ts[1]!);
    // WEBHOOK_RETRY_DELAYS=1,2,1: lower bounds only.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(2000);

    const log = await deliveryLog(app, key, endpoint.id);
    expect(log.map((i) => [i.attempt, i.status_code, i.success, i.delivery_id, i.event])).toEqual([
      [3, 200, true, row!.id, 'meeting.started'],
      [2, 500, false, row!.id, 'meeting.started'],
      [1, 500, false, row!.id, 'meeting.started'],
    ]);
    for (const item of log) expect(item.payload).toEqual(JSON.parse(got[0]!.body));
    expect(log[0].payload.data.id).toBe(meetingId);
  });

  it('a 3xx redirect is a failed attempt (logged with its status code) and the redirect target is never called', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const redirectTarget = receiver.path('redirect-target');
    const source = receiver.path('redirect', () => ({
      status: 302,
      headers: { location: redirectTarget.url },
    }));
    const endpoint = await createEndpoint(app, key, source.url, ['meeting.started']);
    await startMeeting(app, key);
    await vi.waitFor(
      async () => expect(await attemptCount(app, endpoint.id), 'attempts').toBeGreaterThanOrEqual(2),
      WAIT,
    );
    const log = await deliveryLog(app, key, endpoint.id);
    const del = await app.request(`/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key });
    expect(del.status).toBe(200);

    expect(log.slice(-2).map((i) => [i.attempt, i.status_code, i.success])).toEqual([
      [2, 302, false],
      [1, 302, false],
    ]);
    expect(receiver.at(source.path).length).toBeGreaterThanOrEqual(2);
    expect(receiver.at(redirectTarget.path)).toEqual([]);
  });

  it('a receiver that does not answer within WEBHOOK_TIMEOUT_MS is a failed attempt logged with error "timeout"', async () => {
    const { key } = await app.createAccount({ form: 'B' });
    const slow = receiver.path('slow', () => ({ delayMs: 1500 }));
    const endpoint = await createEndpoint(app, key, slow.url, ['meeting.started']);
    await startMeeting(app, key);
    await vi.waitFor(
      async () => expect(await attemptCount(app, endpoint.id), 'attempts').toBeGreaterThanOrEqual(1),
      WAIT,
    );
    const log = await deliveryLog(app, key, endpoint.id);
    await app.request(`/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key });
    expect(log.at(-1)).toMatchObject({ attempt: 1, status_code: null, success: false, error: 'timeout' });
    expect(receiver.at(slow.path).length).toBeGreaterThanOrEqual(1);
  });
});

describe('deactivation', () => {
  it('four failures deactivate the endpoint, fail the event, cancel its other pending deliveries and email the owner once; inactive-time events are never queued nor replayed after re-enabling', async () => {
    const { key, account } = await quiet.createAccount({ form: 'A' });
    let mode: 'fail' | 'ok' = 'fail';
    const target = receiver.path('dead', () => ({ status: mode === 'fail' ? 500 : 200 }));
    const endpoint = await createEndpoint(quiet, key, target.url, ['meeting.started', 'meeting.transcribed']);

    // Another delivery of this endpoint, pending with a retry due much later.
    const laterEventId = randomUUID();
    const laterDeliveryId = randomUUID();
    const now = new Date();
    await quiet.db.insert(events).values({
      id: laterEventId,
      accountId: account.id,
      type: 'meeting.started',
      data: {},
      createdAt: now,
    });
    await quiet.db.insert(deliveries).values({
      id: laterDeliveryId,
      endpointId: endpoint.id,
      eventId: laterEventId,
      event: 'meeting.started',
      payload: '{"event":"meeting.started"}',
      attemptsMade: 1,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
      createdAt: now,
    });

    const meetingId = await startMeeting(quiet, key);
    const [delivery] = (await deliveryRows(quiet, endpoint.id)).filter((d) => d.id !== laterDeliveryId);
    // Four dispatcher runs, each retry made due at once instead of after its delay.
    const runs = [];
    for (let i = 0; i < 4; i++) {
      if (i > 0) await makeDue(quiet, eq(deliveries.id, delivery!.id));
      runs.push(await dispatch(quiet));
    }
    expect(runs.map((r) => [r.deliveries_retried, r.deliveries_failed])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 1],
    ]);
    // Settled: every delivery of the endpoint that is still pending made due, and a dispatcher run
    // finds nothing to attempt (no 5th attempt, no attempt of the cancelled one, no second email).
    await makeDue(quiet, eq(deliveries.endpointId, endpoint.id));
    expect(await dispatch(quiet)).toMatchObject(IDLE);

    const listed = await quiet.request('/v1/webhooks', { key });
    expect(listed.json.data).toEqual([
      {
        id: endpoint.id,
        url: target.url,
        events: endpoint.events,
        created_at: endpoint.created_at,
        active: false,
      },
    ]);
    expect(receiver.at(target.path)).toHaveLength(4);
    const rows = await deliveryRows(quiet, endpoint.id);
    const failed = rows.find((d) => d.id !== laterDeliveryId)!;
    expect(failed).toMatchObject({ event: 'meeting.started', status: 'failed', attemptsMade: 4 });
    expect(JSON.parse(failed.payload).data.id).toBe(meetingId);
    expect(rows.find((d) => d.id === laterDeliveryId)).toMatchObject({
      status: 'cancelled',
      attemptsMade: 1,
    });
    expect(await attemptCount(quiet, endpoint.id)).toBe(4);

    const mails = smtp.mails.filter((m) => m.to.includes(account.email));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual([account.email]);
    expect(mails[0]!.subject).toContain(target.url);
    const stored = await quiet.db.select().from(emails).where(eq(emails.accountId, account.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ to: account.email, transport: 'smtp' });
    expect(stored[0]!.subject).toContain(target.url);

    // An event while inactive is neither delivered nor queued.
    await storeTranscript(quiet, key, meetingId);
    const [transcribed] = await quiet.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.meetingId, meetingId), eq(events.type, 'meeting.transcribed')));
    expect(transcribed).toBeDefined();
    expect(await quiet.db.select().from(deliveries).where(eq(deliveries.eventId, transcribed!.id))).toEqual(
      [],
    );

    // Re-enabled (the settings UI): the inactive-time event is not replayed; the next new one arrives.
    mode = 'ok';
    const reenabled = await reenableEndpointOrThrow(quiet.db, account.id, endpoint.id);
    expect(reenabled.active).toBe(true);
    const next = await startMeeting(quiet, key);
    expect(await dispatch(quiet)).toMatchObject({ ...IDLE, deliveries_succeeded: 1 });
    await makeDue(quiet, eq(deliveries.endpointId, endpoint.id));
    expect(await dispatch(quiet)).toMatchObject(IDLE);
    expect(
      receiver.at(target.path).map((r) => [JSON.parse(r.body).event, JSON.parse(r.body).data.id]),
    ).toEqual([
      ...Array.from({ length: 4 }, () => ['meeting.started', meetingId]),
      ['meeting.started', next],
    ]);
    expect(await quiet.db.select().from(deliveries).where(eq(deliveries.eventId, transcribed!.id))).toEqual(
      [],
    );
    expect((await deliveryRows(quiet, endpoint.id)).find((d) => d.id === laterDeliveryId)).toMatchObject({
      status: 'cancelled',
    });
    expect(smtp.mails.filter((m) => m.to.includes(account.email))).toHaveLength(1);
  });
});

describe("order of a meeting's events", () => {
  /** The meeting and event of a request the receiver got. */
  const about = (r: { body: string }) => {
    const body = JSON.parse(r.body) as { event: string; data: { id: string } };
    return `${body.data.id.slice(0, 8)} ${body.event}`;
  };

  it("a later event's first attempt to an endpoint waits until the earlier event's first attempt has finished, however slow", async () => {
    const { key } = await quiet.createAccount({ form: 'B' });
    const slowFirst = receiver.path('order-slow', (n) => (n === 1 ? { delayMs: 1000 } : {}));
    await createEndpoint(quiet, key, slowFirst.url, ['meeting.started', 'meeting.transcribed']);
    const id = await startMeeting(quiet, key);
    await storeTranscript(quiet, key, id);
    // Both are due at once; the dispatcher sends the second only after the first was answered.
    await dispatch(quiet);
    const [first, second] = receiver.at(slowFirst.path);
    expect([first, second].map((r) => about(r!))).toEqual([
      `${id.slice(0, 8)} meeting.started`,
      `${id.slice(0, 8)} meeting.transcribed`,
    ]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
  });

  it('a failed first attempt lets the next event go: retries then interleave with later events', async () => {
    const { key } = await quiet.createAccount({ form: 'B' });
    const failsOnce = receiver.path('order-retry', (n) => (n === 1 ? { status: 500 } : {}));
    const endpoint = await createEndpoint(quiet, key, failsOnce.url, [
      'meeting.started',
      'meeting.transcribed',
    ]);
    const id = await startMeeting(quiet, key);
    await storeTranscript(quiet, key, id);
    await dispatch(quiet);
    expect(receiver.at(failsOnce.path).map((r) => [about(r), r.status])).toEqual([
      [`${id.slice(0, 8)} meeting.started`, 500],
      [`${id.slice(0, 8)} meeting.transcribed`, 200],
    ]);
    // The started event's retry comes after the later event.
    await makeDue(quiet, eq(deliveries.endpointId, endpoint.id));
    await dispatch(quiet);
    expect(receiver.at(failsOnce.path).map((r) => [about(r), r.status])[2]).toEqual([
      `${id.slice(0, 8)} meeting.started`,
      200,
    ]);
  });

  it('another meeting, or another endpoint, does not wait', async () => {
    const { key } = await quiet.createAccount({ form: 'B' });
    const slow = receiver.path('order-other-slow', (n) => (n === 1 ? { delayMs: 1000 } : {}));
    const other = receiver.path('order-other-endpoint');
    await createEndpoint(quiet, key, slow.url, ['meeting.started', 'meeting.transcribed']);
    await createEndpoint(quiet, key, other.url, ['meeting.transcribed']);
    const held = await startMeeting(quiet, key);
    await storeTranscript(quiet, key, held);
    const free = await startMeeting(quiet, key);
    await dispatch(quiet);
    const got = receiver.at(slow.path);
    expect(got.map(about)).toEqual([
      `${held.slice(0, 8)} meeting.started`,
      `${free.slice(0, 8)} meeting.started`,
      `${held.slice(0, 8)} meeting.transcribed`,
    ]);
    const answeredAt = got[0]!.at + 1000;
    // The other meeting's event went while the slow attempt was still in flight, and so did the
    // same event to the other endpoint.
    expect(got[1]!.at).toBeLessThan(answeredAt);
    expect(receiver.at(other.path).map(about)).toEqual([`${held.slice(0, 8)} meeting.transcribed`]);
    expect(receiver.at(other.path)[0]!.at).toBeLessThan(answeredAt);
    expect(got[2]!.at).toBeGreaterThanOrEqual(answeredAt);
  });
});

describe('deleting an endpoint', () => {
  it('deleting an endpoint with a pending retry cancels it: no further attempts, its deliveries are gone', async () => {
    const { key } = await quiet.createAccount({ form: 'A' });
    const target = receiver.path('deleted', () => ({ status: 500 }));
    const endpoint = await createEndpoint(quiet, key, target.url, ['meeting.started']);
    await startMeeting(quiet, key);
    expect(await dispatch(quiet)).toMatchObject({ ...IDLE, deliveries_retried: 1 });
    const [pending] = await deliveryRows(quiet, endpoint.id);
    expect(pending).toMatchObject({ status: 'pending', attemptsMade: 1 });
    expect(await attemptCount(quiet, endpoint.id)).toBe(1);
    // The retry is due now (not 1 s from now): were it left in place, the next run would send it.
    await makeDue(quiet, eq(deliveries.id, pending!.id));

    const res = await quiet.request(`/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    expect(await dispatch(quiet)).toMatchObject(IDLE);
    expect(receiver.at(target.path)).toHaveLength(1);
    expect(await deliveryRows(quiet, endpoint.id)).toEqual([]);
    expect(await quiet.db.select().from(deliveries).where(eq(deliveries.id, pending!.id))).toEqual([]);
    expect(await attemptCount(quiet, endpoint.id)).toBe(0);
  });
});

describe('URL check at delivery time', () => {
  it('a name that resolves to a private address after registration is blocked at delivery: "blocked: private address", nothing is contacted', async () => {
    let rebound = false;
    const lookups: string[] = [];
    const resolve: Resolver = async (hostname) => {
      lookups.push(hostname);
      if (hostname !== 'rebind.test')
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address: rebound ? '127.0.0.1' : '93.184.216.34', family: 4 }];
    };
    let connections = 0;
    const trap = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    const port = (trap.address() as AddressInfo).port;
    const env = { WEBHOOK_RETRY_DELAYS: '1,2,1' };
    const strict = await startTestApp({
      env,
      services: { webhooks: { ...createServices(parseEnv(env), () => {}, { resolve }).webhooks } },
    });
    try {
      const { key } = await strict.createAccount({ form: 'B' });
      const endpoint = await createEndpoint(strict, key, `https://rebind.test:${port}/hook`, [
        'meeting.started',
      ]);
      expect(lookups).toContain('rebind.test');
      rebound = true;
      await startMeeting(strict, key);
      // Two attempts: the first, and its retry made due at once.
      expect(await dispatch(strict)).toMatchObject({ ...IDLE, deliveries_retried: 1 });
      await makeDue(strict, undefined);
      expect(await dispatch(strict)).toMatchObject({ ...IDLE, deliveries_retried: 1 });
      const log = await deliveryLog(strict, key, endpoint.id);
      expect(log.map((i) => i.attempt)).toEqual([2, 1]);
      for (const item of log) {
        expect(item).toMatchObject({ success: false, status_code: null });
        expect(item.error).toMatch(/^blocked: private address/);
      }
      expect(connections).toBe(0);
    } finally {
      await strict.close();
      await new Promise((r) => trap.close(r));
    }
  });
});

describe('concurrent and dying dispatchers', () => {
  it('four dispatchers racing over 1,000 due deliveries send each exactly once', async () => {
    const { key, account } = await quiet.createAccount();
    const target = receiver.path('race');
    const endpoint = await createEndpoint(quiet, key, target.url, ['meeting.started']);
    const ids = await insertDueDeliveries(quiet.db, account.id, endpoint.id, 1000);

    const runs = await Promise.all(
      Array.from({ length: 4 }, () => runDueWork(quiet.db, quiet.services, { budgetMs: 60_000 })),
    );
    expect(runs.reduce((sum, r) => sum + r.deliveries_succeeded, 0)).toBe(1000);

    const got = receiver.at(target.path);
    expect(got).toHaveLength(1000);
    const perDelivery = new Map<string, number>();
    for (const r of got)
      perDelivery.set(
        String(r.headers['x-service-delivery']),
        (perDelivery.get(String(r.headers['x-service-delivery'])) ?? 0) + 1,
      );
    expect([...perDelivery.keys()].sort()).toEqual([...ids].sort());
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);

    const rows = await deliveryRows(quiet, endpoint.id);
    expect(rows).toHaveLength(1000);
    expect(rows.every((d) => d.status === 'succeeded' && d.attemptsMade === 1)).toBe(true);
    const attempts = await quiet.db
      .select({ deliveryId: deliveryAttempts.deliveryId, n: count() })
      .from(deliveryAttempts)
      .where(eq(deliveryAttempts.endpointId, endpoint.id))
      .groupBy(deliveryAttempts.deliveryId);
    expect(attempts).toHaveLength(1000);
    expect(attempts.every((a) => a.n === 1)).toBe(true);
  });

  it('deliveries claimed by a dispatcher that died are not sent while its lease holds, then sent exactly once after it expires', async () => {
    const { key, account } = await quiet.createAccount();
    const target = receiver.path('lease');
    const endpoint = await createEndpoint(quiet, key, target.url, ['meeting.started']);
    const ids = await insertDueDeliveries(quiet.db, account.id, endpoint.id, 5);

    // A dispatcher claims them and dies before attempting.
    const claimed = await claimDeliveries(quiet.db, 5);
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());

    const during = await runDueWork(quiet.db, quiet.services, { budgetMs: 5_000 });
    expect(during.deliveries_succeeded).toBe(0);
    expect(receiver.at(target.path)).toEqual([]);
    expect(
      (await deliveryRows(quiet, endpoint.id)).every((d) => d.status === 'pending' && d.attemptsMade === 0),
    ).toBe(true);

    // The lease runs out.
    await quiet.db
      .update(deliveries)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(inArray(deliveries.id, ids));
    const after = await Promise.all([
      runDueWork(quiet.db, quiet.services, { budgetMs: 10_000 }),
      runDueWork(quiet.db, quiet.services, { budgetMs: 10_000 }),
    ]);
    expect(after[0].deliveries_succeeded + after[1].deliveries_succeeded).toBe(5);
    const again = await runDueWork(quiet.db, quiet.services, { budgetMs: 5_000 });
    expect(again.deliveries_succeeded).toBe(0);

    const got = receiver.at(target.path).map((r) => String(r.headers['x-service-delivery']));
    expect(got.sort()).toEqual([...ids].sort());
    const rows = await deliveryRows(quiet, endpoint.id);
    expect(rows.every((d) => d.status === 'succeeded' && d.attemptsMade === 1)).toBe(true);
    expect(await attemptCount(quiet, endpoint.id)).toBe(5);
  });
});
