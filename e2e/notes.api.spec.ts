import fs from 'node:fs';
import { recordNote } from '../test/support/recorder';
import { runScript } from '../test/support/run-command';
import { expect, test } from './fixtures';
import { readState } from './state';

// The README's quick start against the real app, started with `npm start` as a new user starts it
// (the standalone build and its server.js): the printed key, both forms, the errors, the OpenAPI
// documents, and the admin CLI beside the server.

const state = readState();

function demoKeyFromServerLog(): string {
  const printed = fs.readFileSync(state.serverLog, 'utf8');
  const key = /API key:\s+(mnk_[A-Za-z0-9]+)/.exec(printed)?.[1];
  if (!key) throw new Error(`npm start printed no API key:\n${printed}`);
  return key;
}

const apiKey = () => (state.database === 'pglite' ? demoKeyFromServerLog() : state.accounts.main!.api_key);

function admin(...args: string[]) {
  const env = {
    ...process.env,
    ...(state.dataDir ? { DATA_DIR: state.dataDir } : { DATABASE_URL: state.databaseUrl }),
  };
  return runScript('scripts/admin.ts', args, env);
}

test('the first start seeds the embedded database and prints a working key; a server database is never seeded', async ({
  request,
}) => {
  const printed = fs.readFileSync(state.serverLog, 'utf8');
  if (state.database === 'pglite') {
    expect(printed).toContain('First run: seeded a demo account');
    expect(printed).toMatch(/Login:\s+demo@meeting-notes\.local/);
    expect(printed).toMatch(/Password:\s+\S{12,}/);
  } else {
    expect(printed).not.toContain('seeded');
  }
  const res = await request.get('/v1/notes?limit=100', { headers: { authorization: `Bearer ${apiKey()}` } });
  expect(res.status()).toBe(200);
  expect(res.headers()['x-request-id']).toBeTruthy();
  const body = await res.json();
  if (state.database === 'pglite') {
    expect(body.data).toHaveLength(12);
    expect(new Set(body.data.map((n: { platform: string }) => n.platform))).toEqual(
      new Set(['meet', 'zoom', 'teams', 'phone', 'microphone']),
    );
  }
});

test('the same notes in Form A and, with X-API-Form: B, in Form B through npm start', async ({
  request,
  baseURL,
}) => {
  const key = apiKey();
  const id = await recordNote(baseURL!, key, {
    title: null,
    platform: 'microphone',
    started_at: '2026-11-20T09:00:00Z',
    ended_at: '2026-11-20T09:00:30Z',
    segments: [{ speaker: 'Ana', content: 'Hello from the e2e test.', start_time: 0, end_time: 2 }],
  });

  const a = await request.get(`/v1/notes/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(await a.json()).toEqual({
    id,
    title: '',
    platform: 'microphone',
    duration_seconds: 30,
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    ended_at: '2026-11-20T09:00:30.000Z',
    language: 'en',
    transcript: [{ sequence: 1, speaker: 'Ana', content: 'Hello from the e2e test.', start_time: 0 }],
    summary: null,
    action_items: [],
  });
  const b = await request.get(`/v1/notes/${id}`, {
    headers: { authorization: `Bearer ${key}`, 'x-api-form': 'B' },
  });
  expect(await b.json()).toEqual({
    id,
    title: null,
    platform: 'phone',
    duration_seconds: 30,
    started_at: '2026-11-20T09:00:00.000Z',
    ended_at: '2026-11-20T09:00:30.000Z',
    status: 'ready',
    transcript: [
      { sequence: 1, speaker: 'Ana', content: 'Hello from the e2e test.', start_time: 0, end_time: 2 },
    ],
    summary: null,
  });

  const deleted = await request.delete(`/v1/notes/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(deleted.status()).toBe(204);
  expect(await deleted.text()).toBe('');
  const again = await request.delete(`/v1/notes/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(again.status()).toBe(404);
  expect(await again.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
});

test('errors in each form through npm start, never a 500', async ({ request }) => {
  const key = apiKey();
  const cases: [Record<string, string>, string, number, unknown][] = [
    [{}, '/v1/notes', 401, { error: { code: 'invalid_api_key', message: expect.any(String) } }],
    [{ 'x-api-form': 'b' }, '/v1/notes', 401, { error: expect.any(String) }],
    [
      { authorization: `Bearer ${key}` },
      '/v1/notes?limit=500',
      422,
      { error: { code: 'validation_error', message: 'limit must be between 1 and 100' } },
    ],
    [
      { authorization: `Bearer ${key}`, 'x-api-form': 'B' },
      '/v1/notes?limit=500',
      400,
      { error: 'limit must be between 1 and 100' },
    ],
    [
      { authorization: `Bearer ${key}` },
      '/v1/notes/not-a-uuid',
      400,
      { error: { code: 'invalid_request', message: expect.any(String) } },
    ],
    [
      { authorization: `Bearer ${key}` },
      '/v1/unknown',
      404,
      { error: { code: 'not_found', message: expect.any(String) } },
    ],
  ];
  for (const [headers, url, status, body] of cases) {
    const res = await request.get(url, { headers });
    expect(res.status(), url).toBe(status);
    expect(res.headers()['content-type']).toContain('application/json');
    expect(await res.json()).toEqual(body);
  }
});

test('the OpenAPI documents of both forms are served', async ({ request }) => {
  for (const form of ['A', 'B']) {
    const res = await request.get(`/api/openapi.json?form=${form}`);
    expect(res.status()).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toContain(`Form ${form}`);
  }
});

test('the admin CLI beside the running server: PGlite says it is in use, PostgreSQL just works', async ({
  request,
}) => {
  const created = await admin(
    'account:create',
    '--email',
    `cli-${Date.now()}@e2e.test`,
    '--early-access',
    '--form',
    'B',
  );
  if (state.database === 'pglite') {
    // PGlite allows one process at a time: the CLI must say so plainly and change nothing.
    expect(created.code).not.toBe(0);
    expect(created.stdout).toBe('');
    expect(created.stderr).toContain('is in use by another process');
    return;
  }
  expect(created.code, created.stderr).toBe(0);
  const { api_key } = JSON.parse(created.stdout);
  const res = await request.get('/v1/notes', { headers: { authorization: `Bearer ${api_key}` } });
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ data: [], next_cursor: null, has_more: false });
});
