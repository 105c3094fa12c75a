import { randomUUID } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, idempotencyKeys, meetings, transcriptSegments } from '../../server/db/schema';
import { startTestApp, type TestApp } from '../support/test-app';

// Idempotency-Key on the recorder's three POSTs (docs/rules.md#recorder-api). A retried call whose
// first answer was lost gets that answer again, without a second meeting or event.

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

type Res = Awaited<ReturnType<TestApp['request']>>;

const SEGMENTS = [
  { speaker: 'Ana', content: 'Shall we start?', start_time: 0, end_time: 2 },
  { speaker: 'Ben', content: 'Yes, the release is on Friday.', start_time: 2, end_time: 5 },
];
const SUMMARY = {
  context: 'Release planning.',
  decisions: ['Ship on Friday'],
  action_items: [{ task: 'Write notes', owner: 'Ben', deadline: null }],
  participants: ['Ana', 'Ben'],
  next_step: null,
  budget_mentioned: null,
  sentiment: 'positive',
};

const post = (key: string, path: string, json: unknown, idempotencyKey?: string) =>
  app.request(path, {
    method: 'POST',
    key,
    json,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });

async function account() {
  const { key, account } = await app.createAccount();
  return { key, accountId: account.id };
}

async function countsFor(accountId: string) {
  const [m] = await app.db.select({ n: count() }).from(meetings).where(eq(meetings.accountId, accountId));
  const byType = await app.db
    .select({ type: events.type, n: count() })
    .from(events)
    .where(eq(events.accountId, accountId))
    .groupBy(events.type);
  const [s] = await app.db
    .select({ n: count() })
    .from(transcriptSegments)
    .innerJoin(meetings, eq(meetings.id, transcriptSegments.meetingId))
    .where(eq(meetings.accountId, accountId));
  return { meetings: m!.n, segments: s!.n, events: Object.fromEntries(byType.map((r) => [r.type, r.n])) };
}

function expectConflict(res: Res, mentions: string) {
  expect({ status: res.status, body: res.json }).toEqual({
    status: 409,
    body: { error: { code: 'conflict', message: expect.stringContaining(mentions) } },
  });
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

const setCreatedAt = (accountId: string, key: string, at: Date) =>
  app.db
    .update(idempotencyKeys)
    .set({ createdAt: at })
    .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));

describe('the same Idempotency-Key and request within 24 hours replays the first answer', () => {
  it('POST /meetings twice with one key → the same 201 {"id"}, one meeting, one meeting.started', async () => {
    const { key, accountId } = await account();
    const first = await post(key, '/api/recorder/meetings', { title: 'Sync', platform: 'zoom' }, 'meeting-1');
    const again = await post(key, '/api/recorder/meetings', { platform: 'zoom', title: 'Sync' }, 'meeting-1');
    expect({ status: first.status, replayed: first.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      replayed: null,
    });
    expect({
      status: again.status,
      body: again.json,
      replayed: again.headers.get('idempotent-replayed'),
    }).toEqual({ status: 201, body: first.json, replayed: 'true' });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(await countsFor(accountId)).toEqual({
      meetings: 1,
      segments: 0,
      events: { 'meeting.started': 1 },
    });
  });

  it('a transcript sent twice with one key → 200 both times (not 409), one set of segments, one meeting.transcribed', async () => {
    const { key, accountId } = await account();
    const id = (await post(key, '/api/recorder/meetings', { platform: 'meet' })).json.id;
    const body = { segments: SEGMENTS, generate_summary: false };
    const first = await post(key, `/api/recorder/meetings/${id}/transcript`, body, 'transcript-1');
    const again = await post(key, `/api/recorder/meetings/${id}/transcript`, body, 'transcript-1');
    expect([first.status, again.status, again.json]).toEqual([200, 200, { id }]);
    expect(await countsFor(accountId)).toEqual({
      meetings: 1,
      segments: 2,
      events: { 'meeting.started': 1, 'meeting.transcribed': 1 },
    });
    // Without a key a repeat is what it always was: a 409.
    expect((await post(key, `/api/recorder/meetings/${id}/transcript`, body)).status).toBe(409);
  });

  it('a summary sent twice with one key → one summary.ready; without a key each call fires one', async () => {
    const { key, accountId } = await account();
    const id = (await post(key, '/api/recorder/meetings', { platform: 'meet' })).json.id;
    await post(key, `/api/recorder/meetings/${id}/transcript`, {
      segments: SEGMENTS,
      generate_summary: false,
    });
    for (let i = 0; i < 3; i++)
      expect(
        (await post(key, `/api/recorder/meetings/${id}/summary`, { summary: SUMMARY }, 'summary-1')).status,
      ).toBe(200);
    expect((await countsFor(accountId)).events['summary.ready']).toBe(1);
    await post(key, `/api/recorder/meetings/${id}/summary`, { summary: SUMMARY });
    expect((await countsFor(accountId)).events['summary.ready']).toBe(2);
  });

  it("keys are per account: another account's identical request with the same key gets its own meeting", async () => {
    const one = await account();
    const two = await account();
    const a = await post(one.key, '/api/recorder/meetings', { platform: 'zoom' }, 'shared-key');
    const b = await post(two.key, '/api/recorder/meetings', { platform: 'zoom' }, 'shared-key');
    expect([a.status, b.status, b.headers.get('idempotent-replayed')]).toEqual([201, 201, null]);
    expect(b.json.id).not.toBe(a.json.id);
    expect((await countsFor(two.accountId)).meetings).toBe(1);
  });
});

describe('the same key with another request is a 409 that says so', () => {
  it('the same key with another body → 409 conflict naming the key; nothing created', async () => {
    const { key, accountId } = await account();
    await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'k');
    expectConflict(
      await post(key, '/api/recorder/meetings', { platform: 'teams' }, 'k'),
      'Idempotency-Key was already used with a different request',
    );
    expectConflict(
      await post(key, '/api/recorder/meetings', { platform: 'zoom', title: 'x' }, 'k'),
      'different request',
    );
    expect((await countsFor(accountId)).meetings).toBe(1);
  });

  it('the same key on another path (or meeting) → 409 conflict; nothing stored', async () => {
    const { key, accountId } = await account();
    const one = (await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'k')).json.id;
    expectConflict(
      await post(key, `/api/recorder/meetings/${one}/transcript`, { segments: SEGMENTS }, 'k'),
      'different request',
    );
    const two = (await post(key, '/api/recorder/meetings', { platform: 'zoom' })).json.id;
    await post(
      key,
      `/api/recorder/meetings/${one}/transcript`,
      { segments: SEGMENTS, generate_summary: false },
      't',
    );
    expectConflict(
      await post(
        key,
        `/api/recorder/meetings/${two}/transcript`,
        { segments: SEGMENTS, generate_summary: false },
        't',
      ),
      'different request',
    );
    expect((await countsFor(accountId)).segments).toBe(2);
  });
});

describe('in flight, failed and expired keys', () => {
  it('concurrent duplicates make one meeting: each answer is that 201 or a 409 "in progress"', async () => {
    const { key, accountId } = await account();
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(key, '/api/recorder/meetings', { platform: 'zoom', title: 'Race' }, 'race'),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json.id)).size).toBe(1);
    for (const res of responses.filter((r) => r.status !== 201)) expectConflict(res, 'in progress');
    expect(await countsFor(accountId)).toEqual({
      meetings: 1,
      segments: 0,
      events: { 'meeting.started': 1 },
    });
  });

  it('while the first request is in progress the same request is a 409 "in progress"; once done, it is replayed', async () => {
    const { key, accountId } = await account();
    const first = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'slow');
    // The state a request leaves while it runs: claimed, no answer yet.
    const [row] = await app.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'slow'));
    await app.db
      .update(idempotencyKeys)
      .set({ status: null, responseBody: null })
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, 'slow')));
    expectConflict(await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'slow'), 'in progress');
    await app.db
      .update(idempotencyKeys)
      .set({ status: row!.status, responseBody: row!.responseBody })
      .where(eq(idempotencyKeys.key, 'slow'));
    expect((await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'slow')).json).toEqual(
      first.json,
    );
    expect((await countsFor(accountId)).meetings).toBe(1);
  });

  it('a claim whose request never finished (the process died) lapses after 10 minutes, and the retry runs', async () => {
    const { key, accountId } = await account();
    await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'orphan');
    await app.db.delete(meetings).where(eq(meetings.accountId, accountId)); // as if the work had not committed
    await app.db
      .update(idempotencyKeys)
      .set({ status: null, responseBody: null, createdAt: new Date(Date.now() - 11 * 60_000) })
      .where(eq(idempotencyKeys.key, 'orphan'));
    const retry = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'orphan');
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect((await countsFor(accountId)).meetings).toBe(1);
  });

  it('a failed first request is not remembered: the client can retry with the same key (and a corrected body)', async () => {
    const { key, accountId } = await account();
    const bad = await post(key, '/api/recorder/meetings', { platform: 'skype' }, 'fix-me');
    expect(bad.status).toBe(422);
    const ok = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'fix-me');
    expect(ok.status).toBe(201);
    expect((await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'fix-me')).json).toEqual(ok.json);
    // A 409 (transcript already stored) is not remembered either.
    await post(key, `/api/recorder/meetings/${ok.json.id}/transcript`, {
      segments: SEGMENTS,
      generate_summary: false,
    });
    expect(
      (await post(key, `/api/recorder/meetings/${ok.json.id}/transcript`, { segments: SEGMENTS }, 'late'))
        .status,
    ).toBe(409);
    const rows = await app.db
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.accountId, accountId));
    expect(rows.map((r) => r.key)).toEqual(['fix-me']);
  });

  it('after 24 hours a key is forgotten: the same request makes a new meeting, another body is no conflict', async () => {
    const { key, accountId } = await account();
    const first = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'daily');
    await setCreatedAt(accountId, 'daily', new Date(Date.now() - 24 * 3600_000 - 1000));
    const again = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'daily');
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(again.json.id).not.toBe(first.json.id);
    await setCreatedAt(accountId, 'daily', new Date(Date.now() - 25 * 3600_000));
    expect((await post(key, '/api/recorder/meetings', { platform: 'teams' }, 'daily')).status).toBe(201);
    expect((await countsFor(accountId)).meetings).toBe(3);
  });

  it('expired keys are cleaned up when new keys are claimed', async () => {
    const { key, accountId } = await account();
    await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'old-1');
    await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'old-2');
    await setCreatedAt(accountId, 'old-1', new Date(Date.now() - 30 * 3600_000));
    await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'new');
    const rows = await app.db
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.accountId, accountId))
      .orderBy(idempotencyKeys.key);
    expect(rows.map((r) => r.key)).toEqual(['new', 'old-2']);
  });
});

describe('the Idempotency-Key header is validated', () => {
  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé'],
    ['a control character (tab)', 'a\tb'],
    ['empty', ''],
  ])('a key of %s → 400 invalid_request, nothing created', async (_label, value) => {
    const { key, accountId } = await account();
    const res = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, value);
    expect({ status: res.status, body: res.json }).toEqual({
      status: 400,
      body: { error: { code: 'invalid_request', message: expect.stringContaining('Idempotency-Key') } },
    });
    expect((await countsFor(accountId)).meetings).toBe(0);
  });

  it('a key of 255 printable characters (spaces and punctuation included) is accepted', async () => {
    const { key } = await account();
    const value = `${randomUUID()} ~!@#$%^&*()_+{}|:<>?`.padEnd(255, 'z');
    const a = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, value);
    const b = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, value);
    expect([a.status, b.status, b.json]).toEqual([201, 201, a.json]);
  });

  it("the stored answer is the first response's exact bytes, kept per (account, key)", async () => {
    const { key, accountId } = await account();
    const first = await post(key, '/api/recorder/meetings', { platform: 'zoom' }, 'bytes');
    const rows = await app.db.execute(
      sql`select status, response_body from idempotency_keys where account_id = ${accountId} and key = 'bytes'`,
    );
    const row = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows)[0] as {
      status: number;
      response_body: string;
    };
    expect({ status: Number(row.status), body: row.response_body }).toEqual({
      status: 201,
      body: first.text,
    });
  });
});
