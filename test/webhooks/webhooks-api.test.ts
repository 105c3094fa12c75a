import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliveryAttempts } from '../../server/db/schema';
import { parseEnv } from '../../server/env';
import { createServices } from '../../server/services';
import { deactivateEndpoint } from '../../server/webhooks/endpoints';
import type { Resolver } from '../../server/webhooks/url-guard';
import { startTestApp, type TestApp } from '../support/test-app';

// The webhook endpoints API in both forms: create, list, delete, URL and secret checks, errors and
// the delivery records (docs/rules.md#webhook-endpoints, docs/rules.md#delivery-records).
//
// Two apps: `strict` has the production URL rules (no WEBHOOK_ALLOW_PRIVATE_URLS) and a fake DNS
// resolver, for creating, listing, deleting and validating endpoints; `live` allows private URLs
// and runs the worker, so that real deliveries to a receiver on 127.0.0.1 fill the delivery log.

type Form = 'A' | 'B';
const FORMS: Form[] = ['A', 'B'];
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET: Record<Form, RegExp> = { A: /^whsec_[A-Za-z0-9+/]{43}=$/, B: /^[0-9a-f]{64}$/ };
const CREATED_KEYS: Record<Form, string[]> = {
  A: ['id', 'url', 'events', 'secret', 'created_at', 'active'],
  B: ['id', 'url', 'events', 'active', 'created_at', 'secret'],
};
const PUBLIC_IP = '93.184.216.34';

// Fake DNS: these names answer the given addresses; any name under public.test answers a public one.
const DNS: Record<string, string[]> = {
  'ten.test': ['10.0.0.5'],
  'loop.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'cgnat.test': ['100.64.0.1'],
  'mixed.test': [PUBLIC_IP, '10.0.0.5'],
};
const fakeResolver: Resolver = async (hostname) => {
  const host = hostname.toLowerCase();
  const answers =
    DNS[host] ?? (host === 'public.test' || host.endsWith('.public.test') ? [PUBLIC_IP] : undefined);
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
};

let strict: TestApp;
let live: TestApp;
let receiver: http.Server;
let receiverUrl: string;
/** Raw bodies the receiver got, by X-Service-Delivery. */
const received = new Map<string, string[]>();
/** Paths whose first request is answered 500 (to put a retry in the log). */
const failFirst = new Set<string>();
const seenPaths = new Set<string>();

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['x-service-delivery']);
      received.set(id, [...(received.get(id) ?? []), Buffer.concat(chunks).toString('utf8')]);
      const path = req.url ?? '';
      const first = !seenPaths.has(path);
      seenPaths.add(path);
      res.writeHead(first && failFirst.has(path) ? 500 : 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  strict = await startTestApp({
    services: { webhooks: { ...createServices(parseEnv({}), () => {}, { resolve: fakeResolver }).webhooks } },
  });
  live = await startTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1,2,1' },
    worker: true,
  });
});

afterAll(async () => {
  await strict?.close();
  await live?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectJson(res: { headers: Headers }) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

/** The error body of the form, with the Form A code. */
function expectError(
  res: { status: number; json: any; headers: Headers },
  form: Form,
  status: { A: number; B: number },
  code: string,
) {
  expectJson(res);
  if (form === 'A') {
    expect({ status: res.status, body: res.json }).toEqual({
      status: status.A,
      body: { error: { code, message: expect.any(String) } },
    });
    expect(res.json.error.message).not.toBe('');
  } else {
    expect({ status: res.status, body: res.json }).toEqual({
      status: status.B,
      body: { error: expect.any(String) },
    });
    expect(res.json.error).not.toBe('');
  }
}

function create(app: TestApp, key: string, json: unknown, form?: Form) {
  return app.request('/v1/webhooks', { method: 'POST', key, json, ...(form && { form }) });
}

async function list(app: TestApp, key: string, form?: Form) {
  const res = await app.request('/v1/webhooks', { key, ...(form && { form }) });
  expect(res.status).toBe(200);
  return res.json.data as any[];
}

describe('POST /v1/webhooks', () => {
  it.each(FORMS)(
    'Form %s answers 201 with the endpoint and its secret, keys in the order of its form',
    async (form) => {
      const { key } = await strict.createAccount({ form });
      const res = await create(strict, key, {
        url: 'https://hooks.public.test/meetings',
        events: ['summary.ready', 'meeting.started'],
      });
      expect(res.status).toBe(201);
      expectJson(res);
      expect(res.json).toEqual({
        id: expect.stringMatching(UUID),
        url: 'https://hooks.public.test/meetings',
        events: ['summary.ready', 'meeting.started'],
        secret: expect.stringMatching(SECRET[form]),
        created_at: expect.stringMatching(TS),
        active: true,
      });
      expect(Object.keys(res.json)).toEqual(CREATED_KEYS[form]);
    },
  );

  it.each(FORMS)(
    'Form %s defaults events to ["meeting.completed"] and removes duplicates keeping order',
    async (form) => {
      const { key } = await strict.createAccount({ form });
      const plain = await create(strict, key, { url: 'https://a.public.test/hook' });
      expect(plain.status).toBe(201);
      expect(plain.json.events).toEqual(['meeting.completed']);
      const dup = await create(strict, key, {
        url: 'https://b.public.test/hook',
        events: [
          'summary.ready',
          'meeting.started',
          'summary.ready',
          'meeting.completed',
          'meeting.started',
          'meeting.transcribed',
        ],
      });
      expect(dup.status).toBe(201);
      expect(dup.json.events).toEqual([
        'summary.ready',
        'meeting.started',
        'meeting.completed',
        'meeting.transcribed',
      ]);
      const listed = await list(strict, key);
      expect(listed.map((e) => e.events)).toEqual([
        ['summary.ready', 'meeting.started', 'meeting.completed', 'meeting.transcribed'],
        ['meeting.completed'],
      ]);
    },
  );

  it.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as const)(
    'a Form %s key with X-API-Form: %s creates an endpoint of the request form (secret format, key order)',
    async (keyForm, requestForm) => {
      const { key } = await strict.createAccount({ form: keyForm });
      const res = await create(strict, key, { url: 'https://override.public.test/hook' }, requestForm);
      expect(res.status).toBe(201);
      expect(res.json.secret).toMatch(SECRET[requestForm]);
      expect(Object.keys(res.json)).toEqual(CREATED_KEYS[requestForm]);
    },
  );

  it.each(FORMS)('Form %s secrets are random: two endpoints never share one', async (form) => {
    const { key } = await strict.createAccount({ form });
    const a = await create(strict, key, { url: 'https://one.public.test/hook' });
    const b = await create(strict, key, { url: 'https://two.public.test/hook' });
    expect(a.json.secret).toMatch(SECRET[form]);
    expect(b.json.secret).toMatch(SECRET[form]);
    expect(a.json.secret).not.toBe(b.json.secret);
    if (form === 'A') expect(Buffer.from(a.json.secret.slice(6), 'base64')).toHaveLength(32);
  });

  it.each(FORMS)(
    'Form %s accepts a name resolving to a public address and a 2048-character url',
    async (form) => {
      const { key } = await strict.createAccount({ form });
      const url = `https://long.public.test/${'a'.repeat(2048 - 'https://long.public.test/'.length)}`;
      expect(url).toHaveLength(2048);
      const res = await create(strict, key, { url, events: ['meeting.started'] });
      expect(res.status).toBe(201);
      expect(res.json.url).toBe(url);
      expect((await list(strict, key)).map((e) => e.url)).toEqual([url]);
    },
  );

  const VALIDATION: [string, unknown, number, string][] = [
    ['missing url', { events: ['meeting.started'] }, 400, 'invalid_request'],
    ['blank url', { url: '   ' }, 400, 'invalid_request'],
    ['url not a string', { url: 42 }, 400, 'invalid_request'],
    [
      'events not an array',
      { url: 'https://x.public.test/hook', events: 'meeting.started' },
      400,
      'invalid_request',
    ],
    [
      'events with a number',
      { url: 'https://x.public.test/hook', events: ['meeting.started', 5] },
      400,
      'invalid_request',
    ],
    ['empty events', { url: 'https://x.public.test/hook', events: [] }, 422, 'validation_error'],
    [
      'an unknown event name',
      { url: 'https://x.public.test/hook', events: ['meeting.started', 'meeting.ended'] },
      422,
      'validation_error',
    ],
    ['an http:// url', { url: 'http://x.public.test/hook' }, 422, 'validation_error'],
    ['user info in the url', { url: 'https://user:pass@x.public.test/hook' }, 422, 'validation_error'],
    [
      'a 2049-character url',
      { url: `https://x.public.test/${'a'.repeat(2049 - 'https://x.public.test/'.length)}` },
      422,
      'validation_error',
    ],
    ['a name that does not resolve', { url: 'https://nowhere.test/hook' }, 422, 'validation_error'],
    ['a name resolving to 10.0.0.5', { url: 'https://ten.test/hook' }, 422, 'validation_error'],
    ['a name resolving to 127.0.0.1', { url: 'https://loop.test/hook' }, 422, 'validation_error'],
    ['a name resolving to 169.254.169.254', { url: 'https://metadata.test/hook' }, 422, 'validation_error'],
    ['a name resolving to ::1', { url: 'https://v6loop.test/hook' }, 422, 'validation_error'],
    ['a name resolving to ::ffff:127.0.0.1', { url: 'https://mapped.test/hook' }, 422, 'validation_error'],
    ['a name resolving to 100.64.0.1', { url: 'https://cgnat.test/hook' }, 422, 'validation_error'],
    [
      'a name resolving to one public and one private address',
      { url: 'https://mixed.test/hook' },
      422,
      'validation_error',
    ],
    ['the literal https://127.0.0.1/', { url: 'https://127.0.0.1/hook' }, 422, 'validation_error'],
    ['the literal https://[::1]/', { url: 'https://[::1]/hook' }, 422, 'validation_error'],
    ['decimal loopback https://2130706433/', { url: 'https://2130706433/' }, 422, 'validation_error'],
    ['hex loopback https://0x7f.0.0.1/', { url: 'https://0x7f.0.0.1/' }, 422, 'validation_error'],
    ['octal loopback https://017700000001/', { url: 'https://017700000001/' }, 422, 'validation_error'],
  ];

  describe.each(FORMS)('Form %s', (form) => {
    it.each(VALIDATION)('%s is rejected and nothing is created', async (_name, body, statusA, code) => {
      const { key } = await strict.createAccount({ form });
      const res = await create(strict, key, body);
      expectError(res, form, { A: statusA, B: 400 }, code);
      expect(await list(strict, key)).toEqual([]);
    });

    it.each([
      ['a body that is not JSON', 'this is not json'],
      ['a JSON array', JSON.stringify([{ url: 'https://x.public.test/hook' }])],
      ['JSON null', 'null'],
    ])('%s is a 400', async (_name, raw) => {
      const { key } = await strict.createAccount({ form });
      const res = await strict.request('/v1/webhooks', {
        method: 'POST',
        key,
        body: raw,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, form, { A: 400, B: 400 }, 'invalid_request');
      expect(await list(strict, key)).toEqual([]);
    });

    it('a URL already registered on the account is a conflict (409, Form B 400); another account may register it', async () => {
      const { key } = await strict.createAccount({ form });
      const first = await create(strict, key, { url: 'https://dup.public.test/hook' });
      expect(first.status).toBe(201);
      const again = await create(strict, key, {
        url: 'https://dup.public.test/hook',
        events: ['summary.ready'],
      });
      expectError(again, form, { A: 409, B: 400 }, 'conflict');
      expect(await list(strict, key)).toEqual([
        expect.objectContaining({ id: first.json.id, events: ['meeting.completed'] }),
      ]);

      const other = await strict.createAccount({ form });
      expect((await create(strict, other.key, { url: 'https://dup.public.test/hook' })).status).toBe(201);
    });

    it('the 26th endpoint of an account is refused (422, Form B 400)', async () => {
      const { key } = await strict.createAccount({ form });
      for (let i = 1; i <= 25; i++) {
        const res = await create(strict, key, { url: `https://many.public.test/hook-${i}` });
        expect(res.status, `endpoint ${i}`).toBe(201);
      }
      const res = await create(strict, key, { url: 'https://many.public.test/hook-26' });
      expectError(res, form, { A: 422, B: 400 }, 'validation_error');
      const listed = await list(strict, key);
      expect(listed).toHaveLength(25);
      expect(listed.map((e) => e.url)).not.toContain('https://many.public.test/hook-26');
    });
  });
});

describe('endpoint limit under concurrency', () => {
  it('30 creations sent at once still leave at most 25 endpoints; the rest are refused with 422', async () => {
    const { key } = await strict.createAccount({ form: 'A' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        create(strict, key, { url: `https://burst.public.test/hook-${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(25);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
    expect(await list(strict, key)).toHaveLength(25);
  });
});

describe('GET and DELETE /v1/webhooks', () => {
  it.each(FORMS)(
    'Form %s lists active and inactive endpoints newest first, without secrets',
    async (form) => {
      const { key } = await strict.createAccount({ form });
      const created = [];
      for (const name of ['first', 'second', 'third']) {
        const res = await create(strict, key, {
          url: `https://${name}.public.test/hook`,
          events: ['meeting.started'],
        });
        expect(res.status).toBe(201);
        created.push(res.json);
        await sleep(3); // distinct created_at, so "newest first" is one order
      }
      await deactivateEndpoint(strict.db, created[1].id, randomUUID());

      const res = await strict.request('/v1/webhooks', { key });
      expect(res.status).toBe(200);
      expectJson(res);
      const withoutSecret = (e: any, active: boolean) => {
        const { secret: _secret, ...rest } = e;
        return { ...rest, active };
      };
      expect(res.json).toEqual({
        data: [
          withoutSecret(created[2], true),
          withoutSecret(created[1], false),
          withoutSecret(created[0], true),
        ],
      });
      for (const item of res.json.data)
        expect(Object.keys(item).sort()).toEqual(['active', 'created_at', 'events', 'id', 'url']);
      expect(res.text).not.toContain(created[0].secret);
    },
  );

  it.each(FORMS)('Form %s lists an empty account as {"data":[]}', async (form) => {
    const { key } = await strict.createAccount({ form });
    const res = await strict.request('/v1/webhooks', { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [] });
  });

  it('Form A deletes with 204 and an empty body; a second delete is 404 not_found', async () => {
    const { key } = await strict.createAccount({ form: 'A' });
    const keep = await create(strict, key, { url: 'https://keep.public.test/hook' });
    const gone = await create(strict, key, { url: 'https://gone.public.test/hook' });
    const res = await strict.request(`/v1/webhooks/${gone.json.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await list(strict, key)).map((e) => e.id)).toEqual([keep.json.id]);
    const again = await strict.request(`/v1/webhooks/${gone.json.id}`, { method: 'DELETE', key });
    expectError(again, 'A', { A: 404, B: 404 }, 'not_found');
  });

  it('Form B deletes with 200 {"success":true}; a second delete is 404', async () => {
    const { key } = await strict.createAccount({ form: 'B' });
    const keep = await create(strict, key, { url: 'https://keep.public.test/hook' });
    const gone = await create(strict, key, { url: 'https://gone.public.test/hook' });
    const res = await strict.request(`/v1/webhooks/${gone.json.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(200);
    expectJson(res);
    expect(res.json).toEqual({ success: true });
    expect((await list(strict, key)).map((e) => e.id)).toEqual([keep.json.id]);
    const again = await strict.request(`/v1/webhooks/${gone.json.id}`, { method: 'DELETE', key });
    expectError(again, 'B', { A: 404, B: 404 }, 'not_found');
  });

  it.each(FORMS)('Form %s DELETE with a malformed id is a 400', async (form) => {
    const { key } = await strict.createAccount({ form });
    const res = await strict.request('/v1/webhooks/not-a-uuid', { method: 'DELETE', key });
    expectError(res, form, { A: 400, B: 400 }, 'invalid_request');
  });

  it("another account's endpoint is 404 to DELETE (both forms) and to GET deliveries, and nothing changes", async () => {
    const owner = await strict.createAccount({ form: 'B' });
    const endpoint = (await create(strict, owner.key, { url: 'https://owned.public.test/hook' })).json;
    for (const form of FORMS) {
      const stranger = await strict.createAccount({ form });
      const del = await strict.request(`/v1/webhooks/${endpoint.id}`, {
        method: 'DELETE',
        key: stranger.key,
      });
      expectError(del, form, { A: 404, B: 404 }, 'not_found');
      const log = await strict.request(`/v1/webhooks/${endpoint.id}/deliveries`, {
        key: stranger.key,
        form: 'B',
      });
      expectError(log, 'B', { A: 404, B: 404 }, 'not_found');
      expect(await list(strict, stranger.key)).toEqual([]);
    }
    const { secret: _secret, ...listed } = endpoint;
    expect(await list(strict, owner.key)).toEqual([listed]);
    const ownLog = await strict.request(`/v1/webhooks/${endpoint.id}/deliveries`, { key: owner.key });
    expect(ownLog.status).toBe(200);
    expect(ownLog.json).toEqual({ data: [], next_cursor: null, has_more: false });
  });
});

describe('GET /v1/webhooks/:id/deliveries', () => {
  it('the delivery log does not exist in Form A (404 not_found, Form A body)', async () => {
    const { key } = await strict.createAccount({ form: 'A' });
    const endpoint = (await create(strict, key, { url: 'https://a.public.test/hook' })).json;
    const res = await strict.request(`/v1/webhooks/${endpoint.id}/deliveries`, { key });
    expectError(res, 'A', { A: 404, B: 404 }, 'not_found');
    const b = await strict.createAccount({ form: 'B' });
    const endpointB = (await create(strict, b.key, { url: 'https://b.public.test/hook' })).json;
    const overridden = await strict.request(`/v1/webhooks/${endpointB.id}/deliveries`, {
      key: b.key,
      form: 'A',
    });
    expectError(overridden, 'A', { A: 404, B: 404 }, 'not_found');
  });

  it('every attempt is listed newest first with its status, error, duration and payload, paged by limit (default 25) and an opaque cursor without skips or repeats', async () => {
    const { key } = await live.createAccount({ form: 'B' });
    const path = `/log-${Date.now()}`;
    failFirst.add(path); // the first request fails, so one delivery has a second attempt
    const created = await create(live, key, {
      url: receiverUrl + path,
      events: ['meeting.started', 'meeting.transcribed'],
    });
    expect(created.status).toBe(201);
    const endpointId = created.json.id as string;
    const meetingIds: string[] = [];
    for (let i = 0; i < 13; i++) meetingIds.push(await live.recordNote(key, { title: `Meeting ${i}` }));
    // 26 deliveries, one of them attempted twice.
    await vi.waitFor(
      async () => {
        const [row] = await live.db
          .select({ n: count() })
          .from(deliveryAttempts)
          .where(eq(deliveryAttempts.endpointId, endpointId));
        expect(row?.n ?? 0, 'attempts recorded').toBeGreaterThanOrEqual(27);
      },
      { timeout: 30_000, interval: 50 },
    );

    const all = await live.request(`/v1/webhooks/${endpointId}/deliveries?limit=100`, { key });
    expect(all.status).toBe(200);
    expectJson(all);
    expect(Object.keys(all.json)).toEqual(['data', 'next_cursor', 'has_more']);
    expect(all.json.next_cursor).toBeNull();
    expect(all.json.has_more).toBe(false);
    const items: any[] = all.json.data;
    expect(items).toHaveLength(27);

    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'attempt',
          'created_at',
          'delivery_id',
          'duration_ms',
          'error',
          'event',
          'id',
          'payload',
          'status_code',
          'success',
        ].sort(),
      );
      expect(item).toEqual({
        id: expect.stringMatching(UUID),
        delivery_id: expect.stringMatching(UUID),
        event: expect.stringMatching(/^meeting\.(started|transcribed)$/),
        attempt: expect.any(Number),
        status_code: expect.any(Number),
        success: item.status_code === 200,
        error: item.success ? null : item.error,
        duration_ms: expect.any(Number),
        payload: expect.any(Object),
        created_at: expect.stringMatching(TS),
      });
      expect(Number.isInteger(item.duration_ms) && item.duration_ms >= 0).toBe(true);
      // The payload is the JSON object that was sent, for this event.
      expect(item.payload.event).toBe(item.event);
      expect(meetingIds).toContain(item.payload.data.id);
      const bodies = received.get(item.delivery_id) ?? [];
      expect(bodies.length).toBeGreaterThanOrEqual(item.attempt);
      expect(item.payload).toEqual(JSON.parse(bodies[item.attempt - 1]!));
    }
    expect(new Set(items.map((i) => i.id)).size).toBe(27);
    expect(new Set(items.map((i) => i.delivery_id)).size).toBe(26);
    expect(items.map((i) => `${i.attempt}:${i.status_code}:${i.success}`).sort()).toEqual(
      [...Array.from({ length: 25 }, () => '1:200:true'), '1:500:false', '2:200:true'].sort(),
    );
    const retried = items.filter((i) => i.attempt === 2)[0];
    const firstTry = items.find((i) => i.delivery_id === retried.delivery_id && i.attempt === 1);
    expect(items.indexOf(retried)).toBeLessThan(items.indexOf(firstTry)); // newest first
    expect(firstTry.payload).toEqual(retried.payload);
    // Newest first.
    const times = items.map((i) => Date.parse(i.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Both events of every meeting are there.
    expect(
      items
        .filter((i) => i.attempt === 1)
        .map((i) => `${i.payload.data.id}/${i.event}`)
        .sort(),
    ).toEqual(meetingIds.flatMap((id) => [`${id}/meeting.started`, `${id}/meeting.transcribed`]).sort());

    // Default page size 25.
    const first = await live.request(`/v1/webhooks/${endpointId}/deliveries`, { key });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual(items.slice(0, 25));
    expect(first.json.has_more).toBe(true);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await live.request(
      `/v1/webhooks/${endpointId}/deliveries?cursor=${encodeURIComponent(first.json.next_cursor)}`,
      { key },
    );
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ data: items.slice(25), next_cursor: null, has_more: false });

    // Cursor walks with limit 1 and limit 7 visit every attempt once, in order.
    for (const limit of [1, 7]) {
      const seen: any[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await live.request(`/v1/webhooks/${endpointId}/deliveries?${query}`, { key });
        expect(page.status).toBe(200);
        expect(page.json.data.length).toBeLessThanOrEqual(limit);
        expect(page.json.has_more).toBe(page.json.next_cursor !== null);
        seen.push(...page.json.data);
        cursor = page.json.next_cursor;
        pages++;
      } while (cursor !== null && pages < 100);
      expect(seen.map((i) => i.id)).toEqual(items.map((i) => i.id));
      expect(pages).toBe(Math.ceil(27 / limit));
    }
  });

  it('the delivery log refuses limit outside 1..100 and a malformed cursor with Form B 400s', async () => {
    const { key } = await live.createAccount({ form: 'B' });
    const endpoint = (await create(live, key, { url: `${receiverUrl}/empty-log` })).json;
    const base = `/v1/webhooks/${endpoint.id}/deliveries`;
    for (const query of [
      'limit=101',
      'limit=0',
      'limit=-1',
      'limit=abc',
      'limit=2.5',
      'cursor=%25%25%25',
      'cursor=bm90LWEtY3Vyc29y',
    ]) {
      const res = await live.request(`${base}?${query}`, { key });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expectError(res, 'B', { A: 400, B: 400 }, 'invalid_request');
    }
    for (const query of ['limit=1', 'limit=100', '']) {
      const res = await live.request(`${base}?${query}`, { key });
      expect(res.json).toEqual({ data: [], next_cursor: null, has_more: false });
    }
    const unknown = await live.request('/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries', {
      key,
    });
    expectError(unknown, 'B', { A: 404, B: 404 }, 'not_found');
    const malformedId = await live.request('/v1/webhooks/nope/deliveries', { key });
    expectError(malformedId, 'B', { A: 400, B: 400 }, 'invalid_request');
  });
});
