import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { overrideEnv, restoreEnv } from '../support/env';
import { startTestApp, type TestApp } from '../support/test-app';

// The /v1 and recorder logs. A failure is one JSON line with the request id the client got, and no
// user content: no SQL parameters, no transcript, title or URL text, whatever the database and
// drizzle put into their errors.

let app: TestApp;
let key: string;
let lines: string[] = [];
const output: string[] = [];

const SECRET = 'SECRET-TRANSCRIPT-TEXT';

beforeAll(async () => {
  overrideEnv({ LOG_LEVEL: 'info' });
  // Private URLs allowed, so a webhook URL gets past the URL check to the database.
  app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  key = (await app.createAccount()).key;
  // Real database failures that carry the request's text: the check constraints refuse it.
  await app.db.execute(
    sql.raw(
      `alter table transcript_segments add constraint no_secret_segments check (position('${SECRET}' in content) = 0)`,
    ),
  );
  await app.db.execute(
    sql.raw(
      `alter table meetings add constraint no_secret_titles check (position('${SECRET}' in coalesce(title, '')) = 0)`,
    ),
  );
  await app.db.execute(
    sql.raw(
      `alter table webhook_endpoints add constraint no_secret_urls check (position('secret-host' in url) = 0)`,
    ),
  );
});

afterAll(async () => {
  await app?.close();
  restoreEnv();
});

beforeEach(() => {
  output.length = 0;
  // Everything written to stderr or the console while a test runs, whoever writes it.
  const capture = (text: unknown) => {
    output.push(String(text));
    return true;
  };
  vi.spyOn(process.stderr, 'write').mockImplementation(capture as never);
  vi.spyOn(process.stdout, 'write').mockImplementation(capture as never);
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args) => void capture(args.join(' ')));
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The captured output as log lines; fails unless every piece is exactly one JSON object line. */
function logLines(): Record<string, any>[] {
  lines = output.join('').split('\n').filter(Boolean);
  return lines.map((line) => {
    expect(() => JSON.parse(line), line).not.toThrow();
    const entry = JSON.parse(line);
    expect(typeof entry).toBe('object');
    return entry;
  });
}

const post = (path: string, json: unknown) => app.request(path, { method: 'POST', key, json });

function expect500(res: Awaited<ReturnType<TestApp['request']>>) {
  const requestId = res.headers.get('x-request-id')!;
  expect({ status: res.status, body: res.json }).toEqual({
    status: 500,
    body: {
      error: {
        code: 'internal_error',
        message: `Internal error; quote request id ${requestId} when reporting it`,
      },
    },
  });
  return requestId;
}

describe('a failed request logs one JSON line with its request id and no user content', () => {
  it('a transcript the database refuses → 500 in shape, one log line naming the request id, the SQLSTATE and constraint, no transcript text or parameters', async () => {
    const id = (await post('/api/recorder/meetings', { title: 'Weekly', platform: 'zoom' })).json.id;
    output.length = 0;
    const res = await post(`/api/recorder/meetings/${id}/transcript`, {
      segments: [{ speaker: 'Ana', content: `the plan is ${SECRET} and more`, start_time: 0 }],
    });
    const requestId = expect500(res);
    const entries = logLines();
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({
      level: 'error',
      msg: 'request failed',
      requestId,
      method: 'POST',
      path: `/api/recorder/meetings/${id}/transcript`,
    });
    expect(entry!.err).toMatchObject({
      message: 'Failed query',
      query: expect.stringContaining('insert into "transcript_segments"'),
    });
    expect(entry!.err.cause).toMatchObject({
      code: '23514',
      constraint: 'no_secret_segments',
      table: 'transcript_segments',
    });
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).not.toContain('Ana');
    expect(lines[0]).not.toContain('params');
    expect(lines[0]).not.toContain('Failing row');
  });

  it('a meeting whose title the database refuses → one line, no title', async () => {
    const res = await post('/api/recorder/meetings', { title: `Board ${SECRET}`, platform: 'zoom' });
    const requestId = expect500(res);
    const entries = logLines();
    expect(entries.map((e) => e.requestId)).toEqual([requestId]);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain('Board');
  });

  it('a /v1 failure (webhook URL refused by the database) → Form A 500, one line, no URL', async () => {
    const { key: keyWithHooks } = await app.createAccount();
    output.length = 0;
    const res = await app.request('/v1/webhooks', {
      method: 'POST',
      key: keyWithHooks,
      json: { url: 'http://127.0.0.1:9/secret-host' },
    });
    const requestId = expect500(res);
    expect(logLines().map((e) => e.requestId)).toEqual([requestId]);
    expect(lines.join('\n')).not.toContain('secret-host');
  });

  it('bad input (4xx) writes no log line at all, in either surface', async () => {
    await app.request('/v1/notes?limit=abc', { key });
    await app.request('/v1/notes/%FF', { key });
    await post('/api/recorder/meetings', { title: 'x\u0000y', platform: 'zoom' });
    await post('/api/recorder/meetings', { platform: 'zoom', started_at: '0000-01-01T00:00:00Z' });
    await app.request('/api/recorder/meetings', {
      method: 'POST',
      key,
      body: '{"title":',
      headers: { 'content-type': 'application/json' },
    });
    expect(logLines()).toEqual([]);
  });
});
