import fs from 'node:fs';
import type { ReceivedSpan } from '../test/support/otlp-receiver';
import { recordNote } from '../test/support/recorder';
import { Receiver } from '../test/support/webhook-receiver';
import { expect, test } from './fixtures';
import { SPANS_FILE } from './spans-file';
import { demoLogin, readState } from './state';

// Health, readiness and traces through the real `npm start` server: Next's instrumentation hook
// starts tracing (e2e/start-server.ts points it at an OTLP collector on 127.0.0.1), so the spans
// of our code come out under Next's own.

const readSpans = (): ReceivedSpan[] =>
  fs
    .readFileSync(SPANS_FILE, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReceivedSpan);

test('GET /api/health and GET /api/ready: 200, uncached, with what was checked', async ({ request }) => {
  const health = await request.get('/api/health');
  expect(health.status()).toBe(200);
  expect(health.headers()['cache-control']).toBe('no-store');
  expect(await health.json()).toEqual({ status: 'ok', checks: { process: { ok: true } } });

  const ready = await request.get('/api/ready');
  expect(ready.status()).toBe(200);
  expect(ready.headers()['cache-control']).toBe('no-store');
  const body = await ready.json();
  expect(body).toMatchObject({
    status: 'ready',
    checks: {
      database: { ok: true, kind: readState().database },
      migrations: { ok: true },
      // npm start's default embedder: its model files are where its thread loads them from.
      embedder: { ok: true, provider: 'semantic' },
    },
    backlog: { deliveries: { depth: expect.any(Number) }, capped: false },
  });
  expect(body.checks.migrations.applied).toBe(body.checks.migrations.shipped);
});

test('traces under Next: a /v1 request with its form and SQL, a recorder call, its embedding and webhook attempt', async ({
  request,
  baseURL,
}) => {
  const { apiKey } = demoLogin(readState());
  const auth = { authorization: `Bearer ${apiKey}` };
  const receiver = await new Receiver().start();
  try {
    const endpoint = await request.post('/v1/webhooks', {
      headers: auth,
      data: { url: `${receiver.base}/hooks`, events: ['meeting.transcribed'] },
    });
    expect(endpoint.status()).toBe(201);
    const secret = (await endpoint.json()).secret as string;
    expect((await request.get('/v1/notes?limit=2', { headers: auth })).status()).toBe(200);
    expect(
      (await request.get('/v1/notes?limit=2', { headers: { ...auth, 'x-api-form': 'B' } })).status(),
    ).toBe(200);

    const transcript = 'Traced meeting: the Osprey launch moves to the fourth of May.';
    await recordNote(baseURL!, apiKey, {
      title: 'Traced',
      segments: [{ speaker: 'Ana', content: transcript, start_time: 0 }],
    });
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);

    // Exported within a second or so of each span's end; the embedding runs in the background.
    // Earlier specs left spans of their own in the file: wait for this test's webhook attempt (the
    // only meeting.transcribed subscription) and for an embedding inside a background job.
    const ready = (all: ReceivedSpan[]) => {
      const ids = new Map(all.map((s) => [s.spanId, s]));
      return (
        all.some((s) => s.name === 'GET /v1/notes') &&
        all.some(
          (s) => s.name === 'webhook.attempt' && s.attributes['webhook.event'] === 'meeting.transcribed',
        ) &&
        all.some((s) => s.name === 'embed' && ids.get(s.parentSpanId ?? '')?.name === 'job.run')
      );
    };
    await expect.poll(() => ready(readSpans()), { timeout: 90_000 }).toBe(true);
    const spans = readSpans();
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    const lists = spans.filter((s) => s.name === 'GET /v1/notes' && s.scope === 'meeting-notes');
    expect(lists.map((s) => s.attributes['api.form'])).toEqual(expect.arrayContaining(['A', 'B']));
    const list = lists[0] as ReceivedSpan;
    expect(list).toMatchObject({ kind: 2, service: 'meeting-notes-e2e' });
    expect(list.attributes).toMatchObject({ 'http.route': '/v1/notes', 'http.response.status_code': 200 });
    // Nested in the span Next made for the request: the instrumentation hook set tracing up.
    expect(list.parentSpanId && byId.get(list.parentSpanId)?.scope).toBe('next.js');
    expect(
      spans.some((s) => s.parentSpanId === list.spanId && s.attributes['db.system.name'] === 'postgresql'),
    ).toBe(true);

    const store = spans.find((s) => s.name === 'POST /api/recorder/meetings/{id}/transcript');
    expect(store?.attributes['http.response.status_code']).toBe(200);

    // The transcript's embedding, in the background job that ran it (other tests' searches embed
    // their queries inside their requests).
    const embed = spans.find(
      (s) =>
        s.name === 'embed' &&
        s.attributes['embedding.provider'] === 'semantic' &&
        byId.get(s.parentSpanId ?? '')?.name === 'job.run',
    );
    expect(embed?.attributes['embedding.texts']).toBeGreaterThanOrEqual(1);

    const attempt = spans.find(
      (s) => s.name === 'webhook.attempt' && s.attributes['webhook.event'] === 'meeting.transcribed',
    );
    expect(attempt?.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
      'webhook.attempt': 1,
      'webhook.outcome': 'succeeded',
    });

    const values = spans.flatMap((s) => [
      s.name,
      ...Object.values(s.attributes).map((v) => JSON.stringify(v)),
    ]);
    // One assertion over every value: Playwright records each expect as a step, and tens of
    // thousands of them (every span of the run so far) took minutes.
    const leaks = values.filter(
      (value) =>
        value.includes(apiKey) || value.includes(secret) || value.includes('Osprey') || /Bearer /.test(value),
    );
    expect(values.length).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
  } finally {
    await receiver.close();
  }
});
