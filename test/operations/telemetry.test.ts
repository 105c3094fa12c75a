import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { flushTracing, startTracing, stopTracing } from '../../server/telemetry/tracing';
import { type ReceivedSpan, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { startTestApp, type TestApp } from '../support/test-app';
import { Receiver } from '../support/webhook-receiver';

// Traces from a real run: the real handlers and worker over a real database export their spans
// over OTLP/HTTP to a collector on 127.0.0.1, and the test reads what arrived there: a span per
// request (route, /v1 form), SQL (operation, table), embedding (provider, texts) and webhook
// attempts (host, status, attempt, outcome), and no secret or transcript text in any attribute.

const TRANSCRIPT = 'The quarterly budget for Project Heron was approved at 41 thousand euros.';
const SERVER = 2;
const CLIENT = 3;

let collector: OtlpReceiver;
let webhooks: Receiver;
let app: TestApp;
let key: string;
let secret: string;
let hookPath: string;

const spansNamed = (name: string) => collector.spans.filter((s) => s.name === name);
const inTrace = (root: ReceivedSpan) => collector.spans.filter((s) => s.traceId === root.traceId);

beforeAll(async () => {
  collector = await startOtlpReceiver();
  webhooks = new Receiver();
  await webhooks.start();
  // Before the database opens, as the server does: its client is traced from the start.
  expect(await startTracing({ endpoint: collector.url, serviceName: 'meeting-notes-test' })).toBe(true);
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, worker: true });

  ({ key } = await app.createAccount({ form: 'A' }));
  const hook = webhooks.path('traced');
  hookPath = hook.path;
  const created = await app.request('/v1/webhooks', {
    method: 'POST',
    key,
    json: { url: hook.url, events: ['meeting.transcribed'] },
  });
  expect(created.status).toBe(201);
  secret = created.json.secret;

  expect((await app.request('/v1/notes?limit=5', { key })).status).toBe(200);
  expect((await app.request('/v1/notes?limit=5', { key, form: 'B' })).status).toBe(200);
  await app.recordNote(key, {
    generateSummary: true,
    title: 'Budget review',
    segments: [{ speaker: 'Ana', content: TRANSCRIPT, start_time: 0, end_time: 4 }],
  });
  await vi.waitFor(() => expect(webhooks.at(hookPath)).toHaveLength(1), { timeout: 20_000 });
  await vi.waitFor(
    async () => {
      await flushTracing();
      expect(spansNamed('webhook.attempt')).not.toHaveLength(0);
      expect(spansNamed('webhook.record')).not.toHaveLength(0);
      expect(spansNamed('job.run')).not.toHaveLength(0);
    },
    { timeout: 20_000 },
  );
});

afterAll(async () => {
  await app?.close();
  await stopTracing();
  await webhooks?.close();
  await collector?.close();
});

describe('spans exported over OTLP/HTTP', () => {
  it('one SERVER span per /v1 request, named by its route, with the form it was answered in', () => {
    const lists = spansNamed('GET /v1/notes');
    expect(lists.map((s) => s.attributes['api.form']).sort()).toEqual(['A', 'B']);
    for (const span of lists) {
      expect(span).toMatchObject({ kind: SERVER, service: 'meeting-notes-test', scope: 'meeting-notes' });
      expect(span.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.route': '/v1/notes',
        'http.response.status_code': 200,
      });
    }
  });

  it("SQL spans below the request: the statement's operation and table", () => {
    const [list] = spansNamed('GET /v1/notes');
    const sql = inTrace(list as ReceivedSpan).filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(sql.length).toBeGreaterThanOrEqual(2);
    for (const span of sql) {
      expect(span.kind).toBe(CLIENT);
      expect(span.parentSpanId).toBe(list?.spanId);
      expect(span.attributes['db.operation.name']).toMatch(/^[A-Z]+$/);
    }
    // The key's statement counts the request (writes the counters); the page is one SELECT.
    expect(sql.map((s) => s.attributes['db.query.summary'])).toContainEqual(
      expect.stringMatching(/^SELECT .*\bmeetings\b/),
    );
    expect(sql.map((s) => s.attributes['db.collection.name'])).toContain('rate_limit_counters');
  });

  it('the recorder call that stores the transcript embeds it: provider and number of texts', () => {
    const [store] = spansNamed('POST /api/recorder/meetings/{id}/transcript');
    expect(store?.attributes).toMatchObject({
      'http.route': '/api/recorder/meetings/{id}/transcript',
      'http.response.status_code': 200,
    });
    const embeds = inTrace(store as ReceivedSpan).filter((s) => s.name === 'embed');
    expect(embeds).not.toHaveLength(0);
    for (const span of embeds) {
      expect(span.attributes).toMatchObject({ 'embedding.provider': 'local', 'embedding.urgent': false });
      expect(span.attributes['embedding.texts']).toBeGreaterThanOrEqual(1);
    }
    // The worker the request woke traces its own work: its claims are not in the request's trace
    // (the request only queues the summary: an INSERT).
    expect(
      inTrace(store as ReceivedSpan).filter(
        (s) =>
          s.attributes['db.collection.name'] === 'jobs' && s.attributes['db.operation.name'] !== 'INSERT',
      ),
    ).toEqual([]);
    // The writes of the transaction that stored it are spans too.
    expect(inTrace(store as ReceivedSpan).map((s) => s.name)).toContain('transaction');
    expect(
      inTrace(store as ReceivedSpan).some(
        (s) =>
          s.attributes['db.operation.name'] === 'INSERT' &&
          s.attributes['db.collection.name'] === 'transcript_segments',
      ),
    ).toBe(true);
  });

  it('a webhook attempt: target host (not the URL), status code, attempt number, outcome', () => {
    const [attempt] = spansNamed('webhook.attempt');
    expect(attempt?.kind).toBe(CLIENT);
    expect(attempt?.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
      'webhook.attempt': 1,
      'webhook.outcome': 'succeeded',
      'webhook.event': 'meeting.transcribed',
    });
    expect(JSON.stringify(attempt?.attributes)).not.toContain(hookPath);
    // How long the attempt waited in the queue after it fell due: a backlog shows here first.
    expect(attempt?.attributes['webhook.wait_ms']).toBeGreaterThanOrEqual(0);
    expect(attempt?.attributes['webhook.wait_ms']).toBeLessThan(20_000);
    // Recording it is a span of its own, with its SQL below it.
    const [record] = spansNamed('webhook.record');
    expect(record?.attributes).toMatchObject({ 'webhook.attempts': 1 });
    expect(inTrace(record as ReceivedSpan).map((s) => s.attributes['db.collection.name'])).toContain(
      'delivery_attempts',
    );
  });

  it('a background job: its kind, its attempt and how long it waited in the queue', () => {
    const [run] = spansNamed('job.run');
    expect(run?.attributes).toMatchObject({ 'job.kind': 'summarize', 'job.attempt': 1 });
    expect(run?.attributes['job.wait_ms']).toBeGreaterThanOrEqual(0);
    expect(run?.attributes['job.wait_ms']).toBeLessThan(20_000);
  });

  it('no attribute holds an API key, a signing secret, a token or the transcript', () => {
    const values = collector.spans.flatMap((s) => Object.values(s.attributes).map((v) => JSON.stringify(v)));
    expect(values.length).toBeGreaterThan(50);
    for (const value of values) {
      expect(value).not.toContain(key);
      expect(value).not.toMatch(/mnk_|whsec_|Bearer/);
      expect(value).not.toContain(secret.slice(6, 20));
      expect(value).not.toContain('Project Heron');
      expect(value).not.toContain(hookPath);
    }
    expect(collector.spans.every((s) => !s.name.includes('Heron'))).toBe(true);
  });
});
